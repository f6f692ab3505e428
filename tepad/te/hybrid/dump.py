"""A scheduled loop nest written back as hybrid script source (TVM's hybrid ``_Dump``).

``dump(stmt, inputs, outputs, name)`` takes the statement ``ScheduleOps`` makes of a
schedule (realizes of tensors, loads and stores of tensors, loops with their kinds and
thread bindings, the ``buffer_bind_scope`` of hybrid and extern stages) and returns the
source of a Python function ``name(*inputs)`` in the hybrid subset that computes the same
outputs: each output is an ``output_tensor``, every other realized tensor and allocation an
``allocate`` (indexed from the start of its realized region), loops become ``range`` /
``parallel`` / ``unroll`` / ``vectorize`` / ``bind`` loops, ``if``/``assert``/``let`` stay
what they are. The source runs as Python on numpy arrays and parses again as a hybrid script.

A statement with no hybrid spelling (a call of an external function, a tensor intrinsic) is a
TepadError naming it.
"""
from __future__ import annotations

import keyword
import re

from ...arith import Analyzer
from ...errors import TepadError
from ...tir import dtype as dt
from ...tir import expr as E
from ...tir import stmt as S
from ...tir.functor import substitute
from ...tir.itervar import IterVar
from ...tir.printer import expr_to_str
from ...tensor.tensor import Tensor
from .intrinsics import CASTS, MATH
from .runtime import HYBRID_GLOBALS

_LOOP = {S.ForKind.SERIAL: "range", S.ForKind.PARALLEL: "parallel",
         S.ForKind.UNROLLED: "unroll", S.ForKind.VECTORIZED: "vectorize"}

_BIN = {E.Add: "+", E.Sub: "-", E.Mul: "*", E.FloorDiv: "//", E.FloorMod: "%",
        E.LT: "<", E.LE: "<=", E.GT: ">", E.GE: ">=", E.EQ: "==", E.NE: "!="}

# intrinsic call names (``tir.exp``) -> the hybrid function that makes them
_CALLS = {"tir.fabs": "abs", "tir.pow": "power", "tir.likely": "likely"}
for _n in MATH:
    _CALLS.setdefault(f"tir.{_n}", _n)

_RESERVED = set(HYBRID_GLOBALS) | set(MATH) | set(CASTS) | {
    "range", "min", "max", "abs", "len", "output_tensor", "allocate", "bind", "likely",
    "True", "False", "None"}


class _Names:
    """Python identifiers for vars, tensors and buffers, unique within one function."""

    def __init__(self):
        self.of: dict = {}
        self.used: set = set()

    def fresh(self, key, hint: str) -> str:
        base = re.sub(r"\W", "_", hint or "v") or "v"
        if base[0].isdigit():
            base = "v_" + base
        if keyword.iskeyword(base) or base in _RESERVED:
            base += "_"
        name, k = base, 1
        while name in self.used:
            name, k = f"{base}_{k}", k + 1
        self.used.add(name)
        self.of[key] = name
        return name

    def get(self, key, hint: str) -> str:
        return self.of.get(key) or self.fresh(key, hint)


def _key(x):
    """Identity of a tensor across its ``op.output(k)`` objects."""
    if isinstance(x, Tensor):
        return ("tensor", id(x.op), x.value_index)
    return ("obj", id(x))


class _Dumper:
    def __init__(self, inputs, outputs):
        self.names = _Names()
        self.lines: list = []
        self.outputs = {_key(t) for t in outputs}
        # buffer (by id) -> (name, [offset per dim]) of what it is bound to
        self.buffers: dict = {}
        # tensor key -> [min per dim] of its realized region (indices are made relative)
        self.origin: dict = {}
        self.keep = []            # objects whose ids key the maps above stay alive

    # --- names ------------------------------------------------------------------------------
    def tensor_name(self, t) -> str:
        return self.names.get(_key(t), t.op.name if t.op.num_outputs == 1 else
                              f"{t.op.name}_v{t.value_index}")

    def var_name(self, v) -> str:
        return self.names.get(_key(v), v.name)

    # --- expressions ------------------------------------------------------------------------
    def e(self, x) -> str:
        if isinstance(x, (int, float, bool)):
            return repr(x)
        if isinstance(x, E.IntImm):
            if x.dtype == "bool":
                return "True" if x.value else "False"
            return str(x.value) if x.dtype == "int32" else f"{x.dtype}({x.value})"
        if isinstance(x, E.FloatImm):
            return repr(float(x.value)) if x.dtype == "float32" else \
                f"{x.dtype}({float(x.value)!r})"
        if isinstance(x, E.Var):
            return self.var_name(x)
        if type(x) in _BIN:
            return f"({self.e(x.a)} {_BIN[type(x)]} {self.e(x.b)})"
        if isinstance(x, E.Div):
            op = "/" if dt.is_float(x.dtype) else "//"
            return f"({self.e(x.a)} {op} {self.e(x.b)})"
        if isinstance(x, E.Mod):
            return f"({self.e(x.a)} % {self.e(x.b)})"
        if isinstance(x, (E.Min, E.Max)):
            return f"{'min' if isinstance(x, E.Min) else 'max'}({self.e(x.a)}, {self.e(x.b)})"
        if isinstance(x, E.And):
            return f"({self.e(x.a)} and {self.e(x.b)})"
        if isinstance(x, E.Or):
            return f"({self.e(x.a)} or {self.e(x.b)})"
        if isinstance(x, E.Not):
            return f"(not {self.e(x.a)})"
        if isinstance(x, E.Select):
            return (f"({self.e(x.true_value)} if {self.e(x.condition)} else "
                    f"{self.e(x.false_value)})")
        if isinstance(x, E.Cast):
            if x.dtype not in CASTS:
                raise TepadError(f"hybrid.build: a cast to {x.dtype} has no hybrid spelling")
            return f"{x.dtype}({self.e(x.value)})"
        if isinstance(x, E.Let):
            return self.e(substitute(x.body, {x.var: x.value}))
        if isinstance(x, E.ProducerLoad):
            return f"{self.tensor_name(x.producer)}[{self.index(x.producer, x.indices)}]"
        if isinstance(x, E.BufferLoad):
            return f"{self.buffer_access(x.buffer, x.indices)}"
        if isinstance(x, E.Call):
            if x.op == "tir.if_then_else":
                c, a, b = x.args
                return f"({self.e(a)} if {self.e(c)} else {self.e(b)})"
            fn = _CALLS.get(x.op)
            if fn is not None:
                return f"{fn}({', '.join(self.e(a) for a in x.args)})"
        raise TepadError(f"hybrid.build: {expr_to_str(x)} has no hybrid script spelling")

    def index(self, t, indices) -> str:
        mins = self.origin.get(_key(t))
        idx = [self.e(_relative(i, mins[k]) if mins else i) for k, i in enumerate(indices)]
        return ", ".join(idx) if idx else "0"

    def buffer_access(self, buf, indices) -> str:
        bound = self.buffers.get(id(buf)) or self.buffers.get(id(buf.data))
        if bound is None:
            raise TepadError(f"hybrid.build: buffer {buf.name} is neither bound to a tensor "
                             "nor allocated in the statement")
        name, offsets = bound
        idx = [i if off is None else i + off for i, off in zip(indices, offsets)] \
            if offsets else list(indices)
        return f"{name}[{', '.join(self.e(i) for i in idx) or '0'}]"

    # --- statements -------------------------------------------------------------------------
    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def block(self, st, depth):
        n = len(self.lines)
        self.s(st, depth)
        if len(self.lines) == n:
            self.emit(depth, "pass")

    def s(self, st, depth):
        if st is None:
            return
        if isinstance(st, S.SeqStmt):
            for x in st.seq:
                self.s(x, depth)
        elif isinstance(st, S.ProducerRealize):
            self.realize(st, depth)
        elif isinstance(st, S.AttrStmt):
            self.attr(st, depth)
        elif isinstance(st, S.For):
            self.loop(st, depth)
        elif isinstance(st, S.IfThenElse):
            self.emit(depth, f"if {self.e(st.condition)}:")
            self.block(st.then_case, depth + 1)
            if st.else_case is not None:
                self.emit(depth, "else:")
                self.block(st.else_case, depth + 1)
        elif isinstance(st, S.While):
            self.emit(depth, f"while {self.e(st.condition)}:")
            self.block(st.body, depth + 1)
        elif isinstance(st, S.AssertStmt):
            self.emit(depth, f"assert {self.e(st.condition)}, {_message(st.message)}")
            self.s(st.body, depth)
        elif isinstance(st, S.LetStmt):
            self.emit(depth, f"{self.names.fresh(_key(st.var), st.var.name)} = "
                             f"{self.e(st.value)}")
            self.keep.append(st.var)
            self.s(st.body, depth)
        elif isinstance(st, S.ProducerStore):
            self.emit(depth, f"{self.tensor_name(st.producer)}"
                             f"[{self.index(st.producer, st.indices)}] = {self.e(st.value)}")
        elif isinstance(st, S.BufferStore):
            self.emit(depth, f"{self.buffer_access(st.buffer, st.indices)} = "
                             f"{self.e(st.value)}")
        elif isinstance(st, S.Allocate):
            name = self.names.fresh(_key(st.buffer_var), st.buffer_var.name)
            self.keep.append(st.buffer_var)
            self.buffers[id(st.buffer_var)] = (name, None)
            scope = _scope_of(st.buffer_var)
            self.emit(depth, f"{name} = allocate(({', '.join(self.e(x) for x in st.extents)},)"
                             f", {st.dtype!r}, {scope!r})")
            self.s(st.body, depth)
        elif isinstance(st, S.Evaluate):
            if isinstance(st.value, E.ConstExpr):
                return
            raise TepadError(f"hybrid.build: the statement {expr_to_str(st.value)} has no "
                             "hybrid script spelling")
        else:
            raise TepadError(f"hybrid.build: a {type(st).__name__} statement has no hybrid "
                             "script spelling")

    def realize(self, st, depth):
        t = st.producer
        name = self.tensor_name(t)
        shape = ", ".join(self.e(r.extent) for r in st.bounds)
        shape = f"({shape},)" if len(st.bounds) == 1 else f"({shape})"
        if _key(t) in self.outputs:
            self.emit(depth, f"{name} = output_tensor({shape}, {t.dtype!r})")
        else:
            self.origin[_key(t)] = [r.min for r in st.bounds]
            self.emit(depth, f"{name} = allocate({shape}, {t.dtype!r}, "
                             f"{(st.storage_scope or 'global')!r})")
        self.s(st.body, depth)

    def attr(self, st, depth):
        if st.attr_key == "buffer_bind_scope":
            buf, t = st.node
            region = st.value.args if isinstance(st.value, E.Call) else None
            offsets = None
            if region:
                mins = [region[2 * k] for k in range(len(region) // 2)]
                base = self.origin.get(_key(t))
                offsets = [_relative(m, base[k]) if base else m for k, m in enumerate(mins)]
            self.buffers[id(buf)] = (self.tensor_name(t), offsets)
            self.keep.append(buf)
            self.s(st.body, depth)
            return
        if st.attr_key in ("thread_extent", "virtual_thread") and isinstance(st.node, IterVar):
            iv = st.node
            name = self.var_name(iv.var)
            self.emit(depth, f"for {name} in bind({iv.thread_tag!r}, {self.e(st.value)}):")
            self.block(st.body, depth + 1)
            return
        # pragmas, realize scopes, alignment hints: no hybrid spelling, the body is the same
        self.s(st.body, depth)

    def loop(self, st, depth):
        v = self.names.fresh(_key(st.loop_var), st.loop_var.name)
        self.keep.append(st.loop_var)
        if st.kind == S.ForKind.THREAD_BINDING and st.thread_binding is not None:
            head = f"bind({st.thread_binding.thread_tag!r}, {self.e(st.extent)})"
            body = st.body if _is_zero(st.min) else \
                substitute(st.body, {st.loop_var: st.loop_var + st.min})
            self.emit(depth, f"for {v} in {head}:")
            self.block(body, depth + 1)
            return
        kind = _LOOP.get(st.kind, "range")
        if _is_zero(st.min):
            rng = f"{kind}({self.e(st.extent)})"
        elif kind == "range":
            rng = f"range({self.e(st.min)}, {self.e(st.min + st.extent)})"
        else:
            # the loop kinds other than range take an extent: shift the variable
            self.emit(depth, f"for {v} in {kind}({self.e(st.extent)}):")
            self.block(substitute(st.body, {st.loop_var: st.loop_var + st.min}), depth + 1)
            return
        self.emit(depth, f"for {v} in {rng}:")
        self.block(st.body, depth + 1)


def _relative(i, m):
    if m is None or _is_zero(m):
        return i
    return Analyzer().simplify(i - m)


def _is_zero(e) -> bool:
    return isinstance(e, E.IntImm) and e.value == 0


def _message(m) -> str:
    text = m.value if isinstance(m, E.StringImm) else expr_to_str(m)
    return repr(text)


def _scope_of(var) -> str:
    ann = getattr(var, "type_annotation", None)
    scope = getattr(ann, "storage_scope", None) or getattr(var, "storage_scope", None)
    return scope or "global"


def dump(stmt, inputs, outputs, name: str = "hybrid_func") -> str:
    """The hybrid script source of a function ``name`` whose parameters are ``inputs`` (te
    tensors and scalar te.vars, in order) that computes ``outputs`` as ``stmt`` does."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise TepadError(f"hybrid.build: the function name {name!r} is not a Python "
                         "identifier")
    d = _Dumper(inputs, outputs)
    d.names.used.add(name)
    params = []
    for a in inputs:
        if isinstance(a, Tensor):
            params.append(d.tensor_name(a))
        elif isinstance(a, E.Var):
            params.append(d.var_name(a))
        else:
            raise TepadError(f"hybrid.build: an input must be a te.Tensor or a te.var, got "
                             f"{a!r}")
    d.s(stmt, 1)
    outs = [d.tensor_name(t) for t in outputs]
    body = d.lines or ["    pass"]
    return "\n".join([f"def {name}({', '.join(params)}):", *body,
                      f"    return {', '.join(outs)}", ""])


__all__ = ["dump"]
