"""States and their steps (TVM's ``auto_scheduler.loop_state``).

A state is a list of steps, each a JSON list naming stages and loops by name:

* ``["SKETCH", params]``: which sketch parameters made the state (no effect on replay);
* ``["CI", stage]``: ``compute_inline``; ``["CR", stage]``: ``compute_root``; ``["CHW", stage, scope]``: ``cache_write`` (the
  cache stage is named ``stage.scope`` and keeps the original loop names);
* ``["SP", stage, loop, [f1, ..., fn]]``: split ``loop`` into ``loop.0 .. loop.n`` whose
  inner extents are ``f1 .. fn`` (the outer one takes the rest);
* ``["CHR", tensor, scope, [readers](, name)]``: ``cache_read`` of ``tensor`` (an input or a
  stage) for the reader stages; the cache stage is named ``name`` (default
  ``tensor.scope``) and its loops ``ax0`` ..;
* ``["RE", stage, [loops]]``; ``["FU", stage, [loops]]`` (the fused loop is named by joining
  the names with ``@``); ``["AN", stage, loop, kind]`` with kind ``parallel``, ``vectorize``,
  ``unroll`` or a thread tag (``blockIdx.x``, ``vthread``, ``threadIdx.x``, ..: ``bind``);
* ``["CA", stage, target_stage, target_loop]``: ``compute_at``;
* ``["PR", stage, loop, pragma, value]``: ``pragma`` (``auto_unroll_max_step``);
* ``["RF", stage, loop, factor_axis]``: ``rfactor`` of the split reduction ``loop``; the new
  stage is named ``stage.rf`` and its loops keep the stage's loop names;
* ``["TL", stage, [dims]]``: ``transform_layout`` of a stage not yet split or reordered (a
  ``cache_read`` copy that packs an operand): each physical dimension is ``"d"`` (logical
  dimension ``d``), ``"d/f"`` (its ``floordiv`` by ``f``) or ``"d%f"`` (its ``floormod``);
  the stage's loops become ``ax0`` .. one per physical dimension.

``apply_steps`` replays the steps on a fresh ``te.create_schedule`` of the DAG's outputs and
can write the same schedule as Python code (what ``print_best`` prints).
"""
from __future__ import annotations

import json

from ..errors import TepadError
from ..schedule import create_schedule
from ..tensor.operation import thread_axis
from .state_view import SketchStateObject, StateView
from .tvm_steps import from_tvm_steps, is_tvm_steps

THREAD_TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "vthread", "threadIdx.x",
               "threadIdx.y", "threadIdx.z")


class State:
    """A candidate program: its steps (see the module docstring) and, for states the search
    made, the sketch parameters they came from (``params``).

    ``State(state_object, dag)`` with the state object a custom sketch rule is given is
    TVM's editing face over it instead (a ``state_view.StateView``)."""

    def __new__(cls, steps=None, params=None):
        if isinstance(steps, (SketchStateObject, StateView)):
            return StateView(steps, params)
        return super().__new__(cls)

    def __init__(self, steps, params=None):
        self.steps = [list(s) for s in steps]
        if params is None:
            for s in self.steps:
                if s and s[0] == "SKETCH":
                    params = s[1]
        self.params = params

    def key(self) -> str:
        return json.dumps(self.steps, sort_keys=True)

    def __str__(self):
        return "\n".join(json.dumps(s) for s in self.steps)

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, State) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())


def _ident(text: str) -> str:
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in text)
    return out if out and not out[0].isdigit() else "_" + out


class _Replay:
    def __init__(self, dag, emit_code):
        self.dag = dag
        self.s = create_schedule([op for op in dag.output_ops])
        self.tensors = {dag.name_of(op): op.output(0) for op in dag.compute_ops}
        self.inputs = {dag.name_of(op): op.output(0) for op in dag.ops}   # cache_read sources
        self.origin = {name: name for name in self.tensors}    # cache stage -> its op's name
        self.iters = {}
        self.names = {}
        self.code = [] if emit_code else None
        self.emit_code = emit_code

    def emit(self, line):
        if self.emit_code:
            self.code.append(line)

    def tensor_var(self, stage):
        return _ident(stage)

    def stage(self, name, step):
        if name not in self.tensors:
            raise TepadError(f"step {step}: no stage {name!r}; stages are "
                             f"{sorted(self.tensors)}")
        return self.s[self.tensors[name]]

    def loops(self, name, step):
        if name not in self.iters:
            st = self.stage(name, step)
            ivs = list(st.op.axis) + list(st.op.reduce_axis)
            if self.origin[name] != name:       # a cache stage keeps the original loop names
                origin = self.dag.op_by_name[self.origin[name]]
                src = list(origin.axis) + list(origin.reduce_axis)
                labels = [iv.var.name for iv in src]
            else:
                labels = [iv.var.name for iv in ivs]
            if len(set(labels)) != len(labels):
                raise TepadError(f"stage {name!r}: its loops {labels} do not have distinct "
                                 "names; the auto-scheduler names loops by their variables, so "
                                 "give each axis and reduce_axis its own name")
            self.iters[name] = dict(zip(labels, ivs))
            self.names[name] = {lab: f"{_ident(name)}_{_ident(lab)}" for lab in labels}
            if labels:
                lhs = ", ".join(self.names[name][lab] for lab in labels)
                sv = f"s[{self.tensor_var(name)}]"     # after cache_write, not T.op
                self.emit(f"{lhs}{',' if len(labels) == 1 else ''} = "
                          f"tuple({sv}.op.axis) + tuple({sv}.op.reduce_axis)")
        return self.iters[name]

    def loop(self, stage, name, step):
        loops = self.loops(stage, step)
        if name not in loops:
            raise TepadError(f"step {step}: stage {stage!r} has no loop {name!r}; its loops "
                             f"are {sorted(loops)}")
        return loops[name]

    def add_loop(self, stage, name, iv):
        self.iters[stage][name] = iv
        self.names[stage][name] = f"{_ident(stage)}_{_ident(name)}"
        return self.names[stage][name]

    def run(self, step):
        kind = step[0]
        if kind == "SKETCH":
            return
        st_name = step[1]
        if kind == "CHR":
            scope, readers = step[2], step[3]
            src = self.tensors.get(st_name, self.inputs.get(st_name))
            if src is None:
                raise TepadError(f"step {step}: no tensor {st_name!r}; tensors are "
                                 f"{sorted(self.inputs)}")
            rstages = [self.stage(r, step) for r in readers]
            cache = self.s.cache_read(src, scope, [st.op.output(0) for st in rstages])
            new = step[4] if len(step) > 4 else f"{st_name}.{scope}"
            if new in self.tensors:
                raise TepadError(f"step {step}: stage {new!r} exists already")
            self.tensors[new] = cache
            self.origin[new] = new
            for r, rst in zip(readers, rstages):    # the readers' ops were rebuilt
                self.tensors[r] = rst.op.output(0)
                self.iters.pop(r, None)
            self.emit(f"{self.tensor_var(new)} = s.cache_read({self.tensor_var(st_name)}, "
                      f"{scope!r}, [{', '.join(self.tensor_var(r) for r in readers)}])")
            return
        st = self.stage(st_name, step)
        sv = f"s[{self.tensor_var(st_name)}]"
        if kind == "CI":
            st.compute_inline()
            self.emit(f"{sv}.compute_inline()")
        elif kind == "CR":
            st.compute_root()
            self.emit(f"{sv}.compute_root()")
        elif kind == "CHW":
            scope = step[2]
            cache = self.s.cache_write(self.tensors[st_name], scope)
            new = f"{st_name}.{scope}"
            self.tensors[new] = cache
            self.origin[new] = self.origin[st_name]
            self.iters.pop(st_name, None)       # the stage's op is now the copy-out
            self.emit(f"{self.tensor_var(new)} = s.cache_write({self.tensor_var(st_name)}, "
                      f"{scope!r})")
        elif kind == "RF":
            loop, factor_axis = step[2], int(step[3])
            self.loop(st_name, loop, step)
            before = dict(self.iters[st_name])
            spatial = list(st.op.axis)
            sp = [n for n in before if any(before[n] is iv for iv in spatial)]
            rf = self.s.rfactor(self.tensors[st_name], before[loop], factor_axis=factor_axis)
            new = f"{st_name}.rf"
            self.tensors[new] = rf
            self.origin[new] = new
            rv = self.names[st_name]
            self.emit(f"{self.tensor_var(new)} = s.rfactor({self.tensor_var(st_name)}, "
                      f"{rv[loop]}, factor_axis={factor_axis})")
            # the .rf stage: the stage's spatial loops with the factored loop at
            # factor_axis, then the other reduction loops, under the stage's loop names
            rest = [n for n in before if n not in sp and n != loop]
            labels = sp[:factor_axis] + [loop] + sp[factor_axis:] + rest
            ivs = list(rf.op.axis) + list(rf.op.reduce_axis)
            self.iters[new] = dict(zip(labels, ivs))
            self.names[new] = {lab: f"{_ident(new)}_{_ident(lab)}" for lab in labels}
            sv_new = f"s[{self.tensor_var(new)}]"
            self.emit(f"{', '.join(self.names[new][lab] for lab in labels)} = "
                      f"tuple({sv_new}.op.axis) + tuple({sv_new}.op.reduce_axis)")
            self.iters.pop(st_name, None)       # the stage now reduces over the .rf stage
        elif kind == "SP":
            loop, factors = step[2], [int(f) for f in step[3]]
            if not factors or any(f < 1 for f in factors):
                raise TepadError(f"step {step}: split factors must be positive ints")
            iv = self.loop(st_name, loop, step)
            var = self.names[st_name][loop]
            del self.iters[st_name][loop]
            cur, cur_var = iv, var
            for level, _ in enumerate(factors):
                inner = 1
                for f in factors[level:]:
                    inner *= f
                outer, rest = st.split(cur, factor=inner)
                ov = self.add_loop(st_name, f"{loop}.{level}", outer)
                rv = self.add_loop(st_name, f"{loop}.{level + 1}", rest)
                self.emit(f"{ov}, {rv} = {sv}.split({cur_var}, factor={inner})")
                cur, cur_var = rest, rv
        elif kind == "RE":
            ivs = [self.loop(st_name, n, step) for n in step[2]]
            st.reorder(*ivs)
            self.emit(f"{sv}.reorder({', '.join(self.names[st_name][n] for n in step[2])})")
        elif kind == "FU":
            ivs = [self.loop(st_name, n, step) for n in step[2]]
            fused = st.fuse(*ivs) if len(ivs) > 1 else ivs[0]
            name = "@".join(step[2])
            if len(ivs) > 1:
                fv = self.add_loop(st_name, name, fused)
                self.emit(f"{fv} = {sv}.fuse("
                          f"{', '.join(self.names[st_name][n] for n in step[2])})")
        elif kind == "AN":
            iv = self.loop(st_name, step[2], step)
            if step[3] in THREAD_TAGS:
                st.bind(iv, thread_axis(step[3]))
                self.emit(f"{sv}.bind({self.names[st_name][step[2]]}, "
                          f"te.thread_axis({step[3]!r}))")
                return
            if step[3] not in ("parallel", "vectorize", "unroll"):
                raise TepadError(f"step {step}: annotation must be parallel, vectorize, "
                                 f"unroll or a thread tag {THREAD_TAGS}")
            getattr(st, step[3])(iv)
            self.emit(f"{sv}.{step[3]}({self.names[st_name][step[2]]})")
        elif kind == "CA":
            target = self.stage(step[2], step)
            iv = self.loop(step[2], step[3], step)
            st.compute_at(target, iv)
            self.emit(f"{sv}.compute_at(s[{self.tensor_var(step[2])}], "
                      f"{self.names[step[2]][step[3]]})")
        elif kind == "PR":
            iv = self.loop(st_name, step[2], step)
            st.pragma(iv, step[3], step[4])
            self.emit(f"{sv}.pragma({self.names[st_name][step[2]]}, {step[3]!r}, {step[4]!r})")
        elif kind == "TL":
            self.transform_layout(st, st_name, step)
        else:
            raise TepadError(f"step {step}: unknown step kind {kind!r}; kinds are SKETCH, CI, CR, "
                             "CHW, CHR, SP, RE, FU, AN, CA, PR, RF, TL")

    def transform_layout(self, st, st_name, step):
        ndim = len(st.op.axis)
        dims = parse_layout(step[2] if len(step) > 2 else None, ndim, step)
        old = self.loops(st_name, step)
        reduce_ivs = list(getattr(st.op, "reduce_axis", []))
        kept = {lab: iv for lab, iv in old.items() if any(iv is r for r in reduce_ivs)}
        new_ivs = st.transform_layout(lambda *idx: [_layout_index(idx, d) for d in dims])
        labels = [f"ax{k}" for k in range(len(new_ivs))]
        # the reduction loops (of a compute stage stored in a new layout) keep their names
        self.iters[st_name] = dict(zip(labels, new_ivs), **kept)
        self.names[st_name] = dict({lab: f"{_ident(st_name)}_{lab}" for lab in labels},
                                   **{lab: self.names[st_name][lab] for lab in kept})
        lhs = ", ".join(self.names[st_name][lab] for lab in labels)
        idx = [f"i{d}" for d in range(ndim)]
        body = ", ".join(_layout_index(idx, d, text=True) for d in dims)
        self.emit(f"{lhs}{',' if len(labels) == 1 else ''} = "
                  f"s[{self.tensor_var(st_name)}].transform_layout("
                  f"lambda {', '.join(idx)}: [{body}])")


def _layout_index(idx, dim, text=False):
    """The physical index of one parsed layout entry ``(d, op, f)`` over the logical indices
    ``idx`` (expressions, or names when ``text``)."""
    d, op, f = dim
    if op is None:
        return idx[d]
    if text:
        return f"{idx[d]} {'//' if op == '/' else '%'} {f}"
    return idx[d] // f if op == "/" else idx[d] % f


def parse_layout(dims, ndim: int, step=None) -> list:
    """A ``TL`` step's physical dimensions ``dims`` (``"d"``, ``"d/f"``, ``"d%f"``) for a stage
    of ``ndim`` logical dimensions, as ``(d, op, f)`` triples (``op`` None, ``"/"`` or
    ``"%"``); every logical dimension must appear whole once, or split by one factor into
    its ``/`` and ``%`` parts."""
    where = f"step {step}" if step is not None else "layout"
    if not isinstance(dims, (list, tuple)) or not dims:
        raise TepadError(f"{where}: the layout must be a non-empty list of \"d\", \"d/f\" or "
                         "\"d%f\" strings (d a logical dimension, f a positive factor)")
    out, parts = [], {}
    for item in dims:
        text = str(item)
        op = "/" if "/" in text else "%" if "%" in text else None
        head, _, tail = text.partition(op) if op else (text, "", "")
        try:
            d = int(head)
            f = int(tail) if op else None
        except ValueError:
            d, f = -1, None
        if not 0 <= d < ndim or (op and (f is None or f < 1)):
            raise TepadError(f"{where}: layout entry {item!r} is not \"d\", \"d/f\" or "
                             f"\"d%f\" with 0 <= d < {ndim} and f >= 1")
        parts.setdefault(d, []).append((op, f))
        out.append((d, op, f))
    for d in range(ndim):
        got = parts.get(d, [])
        whole = got == [(None, None)]
        split = len(got) == 2 and {g[0] for g in got} == {"/", "%"} and got[0][1] == got[1][1]
        if not (whole or split):
            raise TepadError(f"{where}: logical dimension {d} must appear once whole or as "
                             f"one \"{d}/f\" and one \"{d}%f\" (same f); the layout is "
                             f"{list(dims)}")
    return out


def apply_steps(dag, steps, emit_code=False):
    """``(schedule, tensors, code)``: the steps replayed on a fresh schedule of ``dag``;
    ``code`` is the Python schedule code (None unless ``emit_code``). Steps from a TVM log
    (stages and loops named by position) are read first (``tvm_steps``)."""
    if is_tvm_steps(steps):
        steps = from_tvm_steps(dag, steps)
    r = _Replay(dag, emit_code)
    outs = ", ".join(dict.fromkeys(_ident(dag.name_of(op)) for op in dag.output_ops))
    r.emit(f"s = te.create_schedule([{', '.join(f'{o}.op' for o in outs.split(', '))}])")
    for step in steps:
        if not isinstance(step, (list, tuple)) or not step or not isinstance(step[0], str):
            raise TepadError(f"state step {step!r} is not a list starting with its kind")
        r.run(list(step))
    code = "\n".join(r.code) + "\n" if emit_code else None
    return r.s, list(dag.tensors), code
