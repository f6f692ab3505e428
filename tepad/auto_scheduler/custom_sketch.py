"""Custom sketch rules (TVM's ``auto_scheduler.PreloadCustomSketchRule``) and the sketch
they make.

``SketchPolicy(task, ..., init_search_callbacks=[PreloadCustomSketchRule(meet, apply,
name)])`` generates its sketches as TVM does: the stages are visited from the last to the
first; at each compute stage every custom rule is asked ``meet(policy, state, stage_id)``:
``PASS`` (skip the rule), ``APPLY`` (apply it, and the built-in rule too, as another sketch)
or ``APPLY_AND_SKIP_REST`` (apply it alone). ``apply(policy, state, stage_id)`` edits
``loop_state.State(state, policy.search_task.compute_dag)`` and returns
``[[state.state_object, next_stage_id], ...]`` (a single pair is accepted); the visit goes
on at ``next_stage_id``. The built-in rule of this path inlines injective stages that are
not outputs and leaves the others at the root (the multi-level tiling of ``sketch`` is not
applied to DAGs with custom rules).

Each sketch is then annotated as TVM's random annotation does: split factors left ``None``
are the search's parameters (``params["tile"]``, keyed ``"k:stage/loop@step"`` for sketch
``k``; a ``follow_split`` takes its factors from the split it follows); every root stage
fuses its leading spatial loops (up to the first loop other stages are computed at) into a
``parallel`` loop carrying the ``auto_unroll_max_step`` pragma (``params["unroll"]``), and
every stage vectorizes its innermost spatial loop (loops of extent 1 inside it aside) where
that is at most 64 long. States are plain step
lists (``compute_at`` steps last, on the fused loop names), so the log replays them.
"""
from __future__ import annotations

import copy
import math
import random

from ..errors import TepadError
from ..target import is_gpu_kind
from ..tensor.tensor import ComputeOp
from .loop_state import State
from .sketch import UNROLL_CHOICES, _largest_divisor, crossover_tiles, divisors, mutate_tiles
from .state_view import IterView, SketchStateObject, StateView

MAX_VECTOR = 64


class PreloadCustomSketchRule:
    """A custom sketch rule, given to ``SketchPolicy`` in ``init_search_callbacks``:
    ``meet_condition_func(policy, state, stage_id)`` returns ``PASS``, ``APPLY`` or
    ``APPLY_AND_SKIP_REST``; ``apply_func(policy, state, stage_id)`` returns
    ``[[state_object, next_stage_id], ...]`` (see the module docstring)."""

    PASS = 0
    APPLY = 1
    APPLY_AND_SKIP_REST = 2

    def __init__(self, meet_condition_func, apply_func, rule_name="CustomSketchRule"):
        if not callable(meet_condition_func) or not callable(apply_func):
            raise TepadError("PreloadCustomSketchRule: meet_condition_func and apply_func "
                             "must be callables")
        self.meet_condition_func = meet_condition_func
        self.apply_func = apply_func
        self.rule_name = rule_name

    def __call__(self, policy):
        """Nothing to do when the search starts: the policy read the rule when it made its
        sketches."""

    def __repr__(self):
        return f"PreloadCustomSketchRule({self.rule_name})"


def _pairs(rule, ret, stage_id):
    """The ``(state_object, next_stage_id)`` pairs an apply function returned."""
    if isinstance(ret, (list, tuple)) and len(ret) == 2 and \
            isinstance(ret[0], (SketchStateObject, StateView)) and isinstance(ret[1], int):
        ret = [ret]
    out = []
    for item in ret or []:
        if not (isinstance(item, (list, tuple)) and len(item) == 2):
            raise TepadError(f"custom sketch rule {rule.rule_name!r}: apply_func must return "
                             f"[[state_object, next_stage_id], ...], got {item!r}")
        st, nxt = item
        if isinstance(st, StateView):
            st = st.state_object
        if not isinstance(st, SketchStateObject):
            raise TepadError(f"custom sketch rule {rule.rule_name!r}: apply_func returned "
                             f"{type(st).__name__} where a state object "
                             "(State(...).state_object) belongs")
        nxt = int(nxt)
        if nxt >= stage_id:
            raise TepadError(f"custom sketch rule {rule.rule_name!r}: the next stage id "
                             f"{nxt} must be below the stage it was applied to ({stage_id})")
        out.append((st, nxt))
    return out


def _builtin(obj, sid):
    """The built-in rule of this path: inline an injective stage that is not an output."""
    st = obj.stages[sid]
    op = st.op
    if isinstance(op, ComputeOp) and not op.reduce_axis and st.attach is None and \
            not obj.dag.is_output(op) and obj.dag.consumers[st.name]:
        obj = obj.copy()
        obj.compute_inline(sid)
    return obj


def generate_sketches(policy, dag, rules) -> list:
    """The sketch templates (SketchStateObjects) made by ``rules`` and the built-in rule."""
    work = [(SketchStateObject(dag), len(dag.ops) - 1)]
    done, seen = [], set()
    while work:
        nxt = []
        for obj, sid in work:
            if sid < 0:
                if obj.key() not in seen:
                    seen.add(obj.key())
                    done.append(obj)
                continue
            st = obj.stages[sid]
            if not isinstance(st.op, ComputeOp) or st.attach is not None:
                nxt.append((obj, sid - 1))
                continue
            skip_rest = False
            for rule in rules:
                cond = rule.meet_condition_func(policy, obj, sid)
                if cond == PreloadCustomSketchRule.PASS:
                    continue
                if cond not in (PreloadCustomSketchRule.APPLY,
                                PreloadCustomSketchRule.APPLY_AND_SKIP_REST):
                    raise TepadError(f"custom sketch rule {rule.rule_name!r}: "
                                     f"meet_condition_func returned {cond!r}; expected PASS, "
                                     "APPLY or APPLY_AND_SKIP_REST")
                nxt.extend(_pairs(rule, rule.apply_func(policy, obj, sid), sid))
                if cond == PreloadCustomSketchRule.APPLY_AND_SKIP_REST:
                    skip_rest = True
                    break
            if not skip_rest:
                nxt.append((_builtin(obj, sid), sid - 1))
        work = nxt
    return done


class _Template:
    """One sketch: its template steps, the free splits and the annotation steps."""

    def __init__(self, k, obj):
        self.k, self.obj = k, obj
        self.free = {}                  # step index -> (key, extent, levels)
        for i, step in enumerate(obj.steps):
            if step[0] == "SP" and any(f is None for f in step[3]):
                ext = self._extent(step[1], step[2], i)
                if ext is None:
                    raise TepadError(f"custom sketch: split {step} leaves factors to the "
                                     "search, which needs an original loop of the stage "
                                     "with a constant extent (give the factors of a split "
                                     "of a split part, or of a data-dependent loop)")
                self.free[i] = (f"{k}:{step[1]}/{step[2]}@{i}", ext, len(step[3]) + 1)
        self.annotations = self._annotations()

    def _extent(self, stage, loop, upto):
        """The extent of ``loop`` of ``stage`` as the step ``upto`` sees it (an original
        axis, or the outer part of an earlier split with all factors fixed: else None)."""
        op = self.obj.dag.op_by_name[stage]
        for iv in list(op.axis) + list(op.reduce_axis):
            if iv.var.name == loop:
                try:
                    return int(iv.dom.extent)
                except (TypeError, ValueError, AttributeError):
                    return None
        return None

    def _annotations(self):
        """``(annotation steps, {(stage, loop): fused loop name}, [(stage, loop, src)]
        vectorize candidates)`` from the stages' final loop structure."""
        obj = self.obj
        steps, renamed, vec = [], {}, []
        for idx, st in enumerate(obj.stages):
            if not isinstance(st.op, ComputeOp) or st.attach == "inline":
                continue
            iters = st.iters
            if st.attach is None:
                lead = []
                for it in iters:
                    if it.iter_kind != IterView.SPATIAL:
                        break
                    lead.append(it)
                    if obj.attached_at(idx, it.name):
                        break
                if lead:
                    names = [it.name for it in lead]
                    fused = "@".join(names)
                    if len(names) > 1:
                        steps.append(["FU", st.name, names])
                        for n in names:
                            renamed[(st.name, n)] = fused
                    steps.append(["AN", st.name, fused, "parallel"])
                    steps.append(["PR?", st.name, fused])
                    iters = iters[len(lead):]
            inner = list(iters)
            while inner and inner[-1].src is None and inner[-1].extent == 1:
                inner.pop()             # a 1-long loop inside (c of 1-wide blocks)
            if inner and inner[-1].iter_kind == IterView.SPATIAL and \
                    not obj.attached_at(idx, inner[-1].name):
                vec.append((st.name, inner[-1]))
        return steps, renamed, vec

    def resolve(self, tile) -> dict:
        """``{split step index: concrete factors}`` for this sketch's splits."""
        out = {}
        for i, step in enumerate(self.obj.steps):
            if step[0] == "SP":
                out[i] = list(tile[self.free[i][0]][1:]) if i in self.free else list(step[3])
            elif step[0] == "FSP":
                src = out[step[3]]
                n = step[4]
                out[i] = src[:n - 1] + [math.prod(src[n - 1:])]
        return out

    def iter_extent(self, stage, it, factors):
        if it.src is None:
            return it.extent
        step_id, level = it.src
        f = factors[step_id]
        if level >= 1:
            return f[level - 1]
        step = self.obj.steps[step_id]
        ext = self._extent(stage, step[2], step_id)
        return None if ext is None else -(-ext // math.prod(f))

    def steps(self, params) -> list:
        factors = self.resolve(params["tile"])
        unroll = int(params.get("unroll", 0))
        ann, renamed, vec = self.annotations
        body, attach = [], []
        for i, step in enumerate(self.obj.steps):
            if step[0] in ("SP", "FSP"):
                body.append(["SP", step[1], step[2], factors[i]])
            elif step[0] == "CA":
                loop = renamed.get((step[2], step[3]), step[3])
                attach.append(["CA", step[1], step[2], loop])
            else:
                body.append(list(step))
        for a in ann:
            if a[0] == "PR?":
                if unroll:
                    body.append(["PR", a[1], a[2], "auto_unroll_max_step", unroll])
            else:
                body.append(list(a))
        for stage, it in vec:
            ext = self.iter_extent(stage, it, factors)
            if ext is not None and 1 < ext <= MAX_VECTOR:
                body.append(["AN", stage, it.name, "vectorize"])
        return body + attach


class CustomSketch:
    """The sketches of a DAG under custom rules, with ``Sketch``'s interface (``steps``,
    ``state``, ``random_params``, ``mutate``, ``crossover``, ``default_params``,
    ``features``). ``params``: ``{"sketch": k, "tile": {...}, "unroll": n}``."""

    def __init__(self, policy, rules):
        task = policy.search_task
        if is_gpu_kind(task.target):
            raise TepadError("custom sketch rules are supported for CPU targets only; the "
                             f"task's target is {task.target}")
        self.dag = task.compute_dag
        self.target = task.target
        objs = generate_sketches(policy, self.dag, rules)
        if not objs:
            raise TepadError("custom sketch rules left no sketch")
        self.templates = [_Template(k, o) for k, o in enumerate(objs)]
        self.tile_keys = {}
        for t in self.templates:
            for key, ext, levels in t.free.values():
                self.tile_keys[key] = (ext, levels)
        self._all_keys = sorted(self.tile_keys)

    def _keys(self, k):
        return {key: v for key, v in self.tile_keys.items() if key.startswith(f"{k}:")}

    def steps(self, params) -> list:
        k = int(params.get("sketch", 0))
        if not 0 <= k < len(self.templates):
            raise TepadError(f"custom sketch: no sketch {k}; there are {len(self.templates)}")
        return [["SKETCH", params]] + self.templates[k].steps(params)

    def state(self, params) -> State:
        return State(self.steps(params), params)

    def random_params(self, rng: random.Random) -> dict:
        k = rng.randrange(len(self.templates))
        tile = {}
        for key, (extent, levels) in self._keys(k).items():
            rest, inner = extent, []
            for _ in range(levels - 1):
                d = rng.choice(divisors(rest))
                inner.append(d)
                rest //= d
            tile[key] = [rest] + inner[::-1]
        return {"sketch": k, "tile": tile, "unroll": rng.choice(UNROLL_CHOICES)}

    def default_params(self) -> dict:
        """Sketch 0; each free split's innermost factor the largest divisor up to 8, the
        others up to 4, the rest to the outer loop."""
        tile = {}
        for key, (extent, levels) in self._keys(0).items():
            rest, inner = extent, []
            for lv in range(levels - 1):
                d = _largest_divisor(rest, 8 if lv == 0 else 4)
                inner.append(d)
                rest //= d
            tile[key] = [rest] + inner[::-1]
        return {"sketch": 0, "tile": tile, "unroll": 64}

    def mutate(self, params, rng: random.Random) -> dict:
        keys = set(params["tile"])
        p = mutate_tiles(params, rng, keys, lambda t: True, UNROLL_CHOICES)
        p["sketch"] = params.get("sketch", 0)
        return p

    def crossover(self, a, b, rng: random.Random):
        if a.get("sketch", 0) != b.get("sketch", 0):
            return None
        child = crossover_tiles(a, b, rng, set(a["tile"]), lambda t: True)
        if child is not None:
            child["sketch"] = a.get("sketch", 0)
        return child

    def features(self, params) -> list:
        """log2 of every tile level (zeros for other sketches' splits), the sketch index
        and the unroll budget."""
        feats = []
        tile = params["tile"]
        for key in self._all_keys:
            levels = tile.get(key) or [1] * self.tile_keys[key][1]
            feats.extend(math.log2(max(1, e)) for e in levels)
        feats.append(float(params.get("sketch", 0)))
        feats.append(math.log2(1 + int(params.get("unroll", 0))))
        return feats

    def __deepcopy__(self, memo):
        return self                     # immutable once built; states share it

    def copy(self):
        return copy.copy(self)
