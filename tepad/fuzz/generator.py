"""Random compute DAGs with random schedules, written as runnable tepad code.

The generator never builds objects behind the reader's back: every definition and schedule
step is a line of Python that is executed at once in a namespace (``case.ns``) and kept in
``case.lines``. The lines *are* the reproducer: ``case.script()`` is a runnable program.

Every random choice goes through a ``Source`` (``int(lo, hi)``). Three sources exist:

* ``RandomSource(seed)``: fresh choices, recorded (``.record``) so a case can be replayed;
* ``ReplaySource(choices)``: replays recorded choices (clamped into range, 0 once exhausted),
  which is what the greedy shrinker mutates;
* ``HypothesisSource(draw)``: choices from hypothesis (``draw(st.integers(lo, hi))``), so the
  generator runs under ``@given`` with hypothesis' own shrinking.

Choice 0 is always the simplest option (the smallest size, no optional step, the first kind),
so shrinking towards 0 shrinks the program.

What is drawn
-------------
Definitions: 1-3 placeholders over up to three dimension "bases" (``H``, ``W``, ``K``), each
either a constant (odd sizes welcome) or a ``te.var`` bound at call time; dtypes int32,
float32, int8 (plus casts between them). Operations: elementwise, binary, broadcasts of 1-D
tensors, stencils with offsets, zero-padding through ``te.if_then_else`` (guarded loads that
would be out of bounds when the branch is not taken), transposes, window reductions
(sum/max/min), full-row/column sums, matmul-like contractions, outer products, casts.

Schedules (every primitive tepad has): cache_read, cache_write (drawn before any loop
transform of the stage), split (factor or nparts, non-divisible welcome), fuse, reorder,
tile, vectorize, unroll, parallel, compute_inline, compute_root, and compute_at at legal
points only (every consumer of the stage, looking through inlined stages, is inside the
chosen loop).

Layouts and rolling buffers: in about ``layout_percent`` % of the cases, inputs and compute
stages (before their loop transforms, so the axes are adjacent leaves) sometimes get one or two
``transform_layout`` calls: splits ``[i // c, i % c]`` (padding for non-divisible extents),
offset splits ``[(i + k) // c, (i + k) % c]`` (padding at both ends), permutations, outer/inner
parts moved, ``te.AXIS_SEPARATOR``; ``pad_value`` absent, a constant, or ``tir.undef``. A stage
with a layout stays at the root (or is inlined): compute_at of it is refused by design. The
runner passes inputs in the physical layout (``tepad/fuzz/layouts.py``: padding holds the pad
value, or a loud sentinel when it must never be read) and reads outputs back, checking that
their padding holds the pad value. ``rolling_buffer()`` is drawn on a producer computed at the
outer loop of a split of the window axis of its only consumer (``rolling_applicable``: a
stencil or window read, serial loops down to the attach point, a box region); consumers of
such producers often split that axis first and the producer is then often attached there.
``LAYOUT_HOOKS`` takes extra hooks.

With ``illegal_rate > 0`` a case may also contain one deliberately illegal step (compute_at
at a non-leaf, at a stage that does not enclose all consumers, a compute_at cycle, splitting
an axis twice, rolling_buffer at the root or on an output, a non-injective layout, a pad_value
reading another tensor, ...). Such a step is marked in ``case.illegal``; the runner then expects a
``TepadError`` (from the schedule call or from lower/build), never another exception.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from ..arith.affine import affine_terms

# ------------------------------------------------------------------------------- sources


class Source:
    """A stream of integer choices; ``int(lo, hi)`` is inclusive, 0 offsets are simplest."""

    def int(self, lo: int, hi: int) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def pick(self, seq):
        seq = list(seq)
        return seq[self.int(0, len(seq) - 1)]

    def flag(self, percent: int) -> bool:
        """True with about ``percent``% probability; the choice 0 means False."""
        return self.int(0, 99) >= 100 - percent


class RandomSource(Source):
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.record: list[int] = []

    def int(self, lo, hi):
        if hi <= lo:
            return lo
        v = self.rng.randint(0, hi - lo)
        self.record.append(v)
        return lo + v


class ReplaySource(Source):
    def __init__(self, choices):
        self.choices = list(choices)
        self.pos = 0
        self.record: list[int] = []

    def int(self, lo, hi):
        if hi <= lo:
            return lo
        v = self.choices[self.pos] if self.pos < len(self.choices) else 0
        self.pos += 1
        v = max(0, min(int(v), hi - lo))
        self.record.append(v)
        return lo + v


class HypothesisSource(Source):
    def __init__(self, draw):
        from hypothesis import strategies as st
        self._draw = draw
        self._st = st

    def int(self, lo, hi):
        if hi <= lo:
            return lo
        return self._draw(self._st.integers(lo, hi))


# ------------------------------------------------------------------------------- config

@dataclass
class Config:
    max_stages: int = 5
    max_inputs: int = 3
    dtypes: tuple = ("float32", "int32", "int8")
    symbolic_percent: int = 30     # chance that the dimension bases are te.vars
    illegal_rate: int = 8          # percent of cases with one deliberately illegal step
    cache_percent: int = 12        # per stage: cache_write / cache_read
    single_output: bool = False    # only the last tensor is an output (draw_program)
    max_base: int = 12
    layout_percent: int = 22       # cases where transform_layout may be drawn at all
    rolling_percent: int = 70      # per applicable compute_at'd stencil producer


# Extra hooks (the generator itself draws transform_layout and rolling_buffer, see
# ``_Sched.maybe_layout`` / ``_Sched.maybe_rolling``). Each entry is ``fn(case, src,
# stage_name)`` called after a stage's loop transforms and before its attachment; it may append
# and execute lines through ``case.run(line)`` and must keep the schedule legal (or mark
# ``case.illegal``).
LAYOUT_HOOKS: list = []


@dataclass
class Tens:
    name: str
    dims: list          # [(base, offset)], extent = base + offset, offset <= 0
    dtype: str
    placeholder: bool = False
    reduction: bool = False


class GenerationRefused(Exception):
    """Internal: a drawn op does not fit (e.g. would make an extent < 1); draw another."""


@dataclass
class Case:
    lines: list = field(default_factory=list)
    ns: dict = field(default_factory=dict)
    tensors: list = field(default_factory=list)
    placeholders: list = field(default_factory=list)   # Tens
    outputs: list = field(default_factory=list)        # Tens
    bases: dict = field(default_factory=dict)           # base -> int or var name
    base_values: list = field(default_factory=list)     # runtime bindings for symbolic bases
    illegal: list = field(default_factory=list)         # descriptions of illegal steps
    refused: list = field(default_factory=list)         # (line, TepadError message)
    data_seed: int = 0
    sched_start: int = 0

    # -- executing lines --------------------------------------------------------------------
    def run(self, line: str, illegal: str | None = None):
        """Execute ``line`` now and keep it. A ``TepadError`` from an illegal step is recorded
        (the line stays in the script inside a ``try``); anything else propagates."""
        from ..errors import TepadError
        if illegal is None:
            self.lines.append(line)
            exec(line, self.ns)
            return
        self.illegal.append(illegal)
        self.lines.append(f"try:  # deliberately illegal: {illegal}\n    {line}\n"
                          f"except tepad.TepadError as err:\n    print('refused:', err)")
        try:
            exec(line, self.ns)
        except TepadError as err:
            self.refused.append((line, str(err)))

    def script(self, exact=False, bounds_check=True) -> str:
        """A runnable program reproducing this case (definition, schedule, build, check)."""
        head = ["import numpy as np", "import tepad", "from tepad import te, tir",
                "from tepad.testing import reference", ""]
        body = list(self.lines)
        args = ", ".join(t.name for t in self.placeholders + self.outputs)
        outs = ", ".join(t.name for t in self.outputs)
        tail = [
            "",
            f"args = [{args}]",
            f"f = tepad.lower(s, args{', exact_bounds=True' if exact else ''})",
            "print(f)",
            f"mod = tepad.build(f, bounds_check={bounds_check})",
        ]
        for values in (self.base_values or [{}]):
            env = {k: v for k, v in values.items()}
            tail.append(f"sizes = {env!r}")
            tail.append(f"rng = np.random.default_rng({self.data_seed})")
            tail.append("inputs = {")
            for t in self.placeholders:
                tail.append(f"    {t.name}: random_array(rng, {self.shape_text(t)}, "
                            f"{t.dtype!r}),")
            tail.append("}")
            if not self.has_layouts:
                tail.append("outs = [" + ", ".join(
                    f"np.zeros({self.shape_text(t)}, {t.dtype!r})" for t in self.outputs) +
                    "]")
                tail.append("mod(*inputs.values(), *outs)")
                tail.append(f"expect = reference([{outs}], inputs)")
                tail.append("for got, want in zip(outs, expect):")
                tail.append("    assert_close(got, want)")
                continue
            # transformed layouts: physical arrays in, logical arrays back (tepad.layout)
            tail.append("phys_in = [to_kernel(s[t], a) for t, a in inputs.items()]")
            tail.append("phys_out = [" + ", ".join(
                f"new_output(s[{t.name}], {self.shape_text(t)}, {t.dtype!r}, rng)"
                for t in self.outputs) + "]")
            tail.append("mod(*phys_in, *phys_out)")
            tail.append(f"expect = reference([{outs}], inputs)")
            tail.append(f"for t, phys, want in zip([{outs}], phys_out, expect):")
            tail.append("    got, problem = from_kernel(s[t], phys, want.shape)")
            tail.append("    assert problem is None, f'{t.name}: {problem}'")
            tail.append("    assert_close(got, want)")
        helpers = [
            "def random_array(rng, shape, dtype):",
            "    if dtype.startswith('float'):",
            "        return rng.standard_normal(shape).astype(dtype)",
            "    lim = 8 if dtype == 'int8' else 100",
            "    return rng.integers(-lim, lim, size=shape).astype(dtype)",
            "",
            "def assert_close(got, want):",
            "    if got.dtype.kind == 'f':",
            "        scale = max(1.0, float(np.abs(want).max(initial=0)))",
            "        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * scale)",
            "    else:",
            "        np.testing.assert_array_equal(got, want)",
            "",
        ]
        if self.has_layouts:
            from .layouts import HELPERS
            helpers += HELPERS.strip("\n").splitlines() + [""]
        return "\n".join(head + helpers + body + tail) + "\n"

    @property
    def has_layouts(self) -> bool:
        return any(".transform_layout(" in line for line in self.lines)

    def shape_text(self, t: Tens) -> str:
        """The shape of ``t`` as Python text for the reproducer (``sizes[...]`` when symbolic)."""
        return "(" + ", ".join(_sym_dim(self.bases[b], o) for b, o in t.dims) + \
            ("," if len(t.dims) == 1 else "") + ")"

    def concrete_shape(self, t: Tens, values: dict) -> tuple:
        out = []
        for base, off in t.dims:
            b = self.bases[base]
            out.append((values[b] if isinstance(b, str) else b) + off)
        return tuple(out)


def _sym_dim(b, off):
    if isinstance(b, str):
        return f"sizes[{b!r}]" + (f" - {-off}" if off else "")
    return str(b + off)


# ------------------------------------------------------------------------------- definitions

_BASES = ("H", "W", "K")
_SYM = {"H": "n", "W": "m", "K": "p"}


class _Gen:
    def __init__(self, src: Source, cfg: Config):
        self.src = src
        self.cfg = cfg
        self.case = Case()
        self.count = 0
        self.case.ns.update(_namespace())

    # -- helpers -----------------------------------------------------------------------------
    def extent_text(self, base, off):
        b = self.case.bases[base]
        if isinstance(b, str):
            return b if off == 0 else f"{b} - {-off}"
        return str(b + off)

    def shape_text(self, dims):
        return "(" + ", ".join(self.extent_text(b, o) for b, o in dims) + \
            ("," if len(dims) == 1 else "") + ")"

    def min_extent(self, base, off):
        """Smallest extent this dim can have at run time (symbolic bases >= their need)."""
        b = self.case.bases[base]
        return None if isinstance(b, str) else b + off

    def fits(self, dims):
        for b, o in dims:
            m = self.min_extent(b, o)
            if m is not None and m < 1:
                return False
            if m is None and o < -6:
                return False
        return True

    def fresh(self, prefix="T"):
        name = f"{prefix}{self.count}"
        self.count += 1
        return name

    def const(self, dtype, lo=-3, hi=3):
        c = self.src.int(lo, hi)
        if dtype.startswith("float"):
            return f"{c}.5" if self.src.flag(30) else f"{float(c)}"
        return str(c)

    # -- definitions -------------------------------------------------------------------------
    def define(self):
        cfg, src, case = self.cfg, self.src, self.case
        symbolic = src.flag(cfg.symbolic_percent)
        for b in _BASES:
            if symbolic:
                case.bases[b] = _SYM[b]
            else:
                case.bases[b] = src.int(1, cfg.max_base)
        if symbolic:
            for b in _BASES:
                case.run(f"{_SYM[b]} = te.var({_SYM[b]!r})")
        dtype = src.pick(cfg.dtypes)
        n_inputs = src.int(1, cfg.max_inputs)
        shapes = [[("H", 0), ("W", 0)], [("W", 0), ("K", 0)], [("H", 0)], [("W", 0)],
                  [("K", 0)], [("H", 0), ("W", 0)]]
        for k in range(n_inputs):
            dims = shapes[0] if k == 0 else src.pick(shapes)
            name = "ABC"[k]
            d2 = dtype if k == 0 or not src.flag(20) else src.pick(cfg.dtypes)
            case.run(f"{name} = te.placeholder({self.shape_text(dims)}, {d2!r}, name={name!r})")
            t = Tens(name, list(dims), d2, placeholder=True)
            case.tensors.append(t)
            case.placeholders.append(t)
        n_stages = src.int(1, cfg.max_stages)
        made = 0
        attempts = 0
        while made < n_stages and attempts < 4 * n_stages + 4:
            attempts += 1
            try:
                self.add_op()
                made += 1
            except GenerationRefused:
                continue
        if made == 0:
            self.op_elementwise(case.tensors[0])

    def add_op(self):
        kinds = ["elementwise", "binary", "stencil", "window", "rowsum", "matmul", "pad",
                 "broadcast", "transpose", "cast", "outer", "divmod"]
        kind = self.src.pick(kinds)
        # recent tensors are likelier sources (deeper DAGs)
        ts = self.case.tensors
        x = ts[-1 - self.src.int(0, len(ts) - 1)] if self.src.flag(60) else self.src.pick(ts)
        getattr(self, "op_" + kind)(x)

    def emit(self, t: Tens, body_line: str):
        if not self.fits(t.dims):
            raise GenerationRefused()
        self.case.run(body_line)
        self.case.tensors.append(t)

    def idx(self, ndim):
        return ["i", "j"][:ndim] if ndim <= 2 else None

    def op_elementwise(self, x):
        nm = self.fresh()
        iv = self.idx(len(x.dims))
        c1, c2 = self.const(x.dtype, 1, 3), self.const(x.dtype)   # c1 != 0: keep reading x
        if self.src.flag(30):
            c1 = "-" + c1
        if x.dtype.startswith("float"):
            f = self.src.pick([f"{x.name}[{', '.join(iv)}] * {c1} + {c2}",
                               f"tir.max({x.name}[{', '.join(iv)}], tir.const({c1}, {x.dtype!r}))",
                               f"te.abs({x.name}[{', '.join(iv)}]) - {c2}",
                               f"{x.name}[{', '.join(iv)}] * {c1} + ({' - '.join(iv)}).astype("
                               f"{x.dtype!r})"])
        else:
            f = self.src.pick([f"{x.name}[{', '.join(iv)}] * {c1} + {c2}",
                               f"tir.min({x.name}[{', '.join(iv)}], tir.const({c1}, {x.dtype!r}))",
                               f"{x.name}[{', '.join(iv)}] * {c1} + ({' - '.join(iv)}).astype("
                               f"{x.dtype!r})"])
        self.emit(Tens(nm, list(x.dims), x.dtype),
                  f"{nm} = te.compute({self.shape_text(x.dims)}, lambda {', '.join(iv)}: {f}, "
                  f"name={nm!r})")

    def op_divmod(self, x):
        if x.dtype.startswith("float"):
            raise GenerationRefused()
        nm = self.fresh()
        iv = self.idx(len(x.dims))
        d = self.src.pick(["3", "4", "-3", "7"])
        m = self.src.pick(["4", "5", "-4"])
        ld = f"{x.name}[{', '.join(iv)}]"
        self.emit(Tens(nm, list(x.dims), x.dtype),
                  f"{nm} = te.compute({self.shape_text(x.dims)}, lambda {', '.join(iv)}: "
                  f"{ld} // tir.const({d}, {x.dtype!r}) + {ld} % tir.const({m}, {x.dtype!r}), "
                  f"name={nm!r})")

    def _compatible(self, x, same_dtype=True):
        return [t for t in self.case.tensors
                if len(t.dims) == len(x.dims) and (t.dtype == x.dtype or not same_dtype) and
                all(a[0] == b[0] for a, b in zip(t.dims, x.dims))]

    def op_binary(self, x):
        others = self._compatible(x)
        y = self.src.pick(others)
        nm = self.fresh()
        iv = self.idx(len(x.dims))
        dims = [(a[0], min(a[1], b[1])) for a, b in zip(x.dims, y.dims)]
        a, b = f"{x.name}[{', '.join(iv)}]", f"{y.name}[{', '.join(iv)}]"
        f = self.src.pick([f"{a} + {b}", f"{a} - {b}", f"{a} * {b}", f"tir.max({a}, {b})",
                           f"tir.min({a}, {b})"])
        self.emit(Tens(nm, dims, x.dtype),
                  f"{nm} = te.compute({self.shape_text(dims)}, lambda {', '.join(iv)}: {f}, "
                  f"name={nm!r})")

    def op_broadcast(self, x):
        if len(x.dims) != 2:
            raise GenerationRefused()
        axis = self.src.int(0, 1)
        vs = [t for t in self.case.tensors if len(t.dims) == 1 and t.dtype == x.dtype and
              t.dims[0][0] == x.dims[axis][0]]
        if not vs:
            raise GenerationRefused()
        v = self.src.pick(vs)
        nm = self.fresh()
        dims = list(x.dims)
        dims[axis] = (dims[axis][0], min(dims[axis][1], v.dims[0][1]))
        iv = "ij"[axis]
        op = self.src.pick(["+", "*", "-"])
        self.emit(Tens(nm, dims, x.dtype),
                  f"{nm} = te.compute({self.shape_text(dims)}, lambda i, j: "
                  f"{x.name}[i, j] {op} {v.name}[{iv}], name={nm!r})")

    def op_outer(self, x):
        if len(x.dims) != 1:
            raise GenerationRefused()
        vs = [t for t in self.case.tensors if len(t.dims) == 1 and t.dtype == x.dtype]
        v = self.src.pick(vs)
        nm = self.fresh()
        dims = [x.dims[0], v.dims[0]]
        self.emit(Tens(nm, dims, x.dtype),
                  f"{nm} = te.compute({self.shape_text(dims)}, lambda i, j: "
                  f"{x.name}[i] * {v.name}[j], name={nm!r})")

    def op_stencil(self, x):
        nm = self.fresh()
        offs = [self.src.int(0, 2) for _ in x.dims]
        if not any(offs):
            offs[-1] = 1
        dims = [(b, o - d) for (b, o), d in zip(x.dims, offs)]
        iv = self.idx(len(x.dims))
        shifted = ", ".join(f"{v} + {d}" if d else v for v, d in zip(iv, offs))
        first = ", ".join(f"{v} + {d}" if (d and k == 0) else v
                          for k, (v, d) in enumerate(zip(iv, offs)))
        c = self.const(x.dtype, 1, 3)
        self.emit(Tens(nm, dims, x.dtype),
                  f"{nm} = te.compute({self.shape_text(dims)}, lambda {', '.join(iv)}: "
                  f"{x.name}[{', '.join(iv)}] + {x.name}[{shifted}] * {c} + {x.name}[{first}], "
                  f"name={nm!r})")

    def op_pad(self, x):
        nm = self.fresh()
        offs = [self.src.int(0, 2) for _ in x.dims]
        if not any(offs):
            offs[0] = 1
        iv = self.idx(len(x.dims))
        cond = ", ".join(f"{v} >= {d}" for v, d in zip(iv, offs) if d)
        src_idx = ", ".join(f"{v} - {d}" if d else v for v, d in zip(iv, offs))
        zero = "0.0" if x.dtype.startswith("float") else "0"
        self.emit(Tens(nm, list(x.dims), x.dtype),
                  f"{nm} = te.compute({self.shape_text(x.dims)}, lambda {', '.join(iv)}: "
                  f"te.if_then_else(tir.all({cond}), {x.name}[{src_idx}], "
                  f"tir.const({zero}, {x.dtype!r})), name={nm!r})")

    def op_transpose(self, x):
        if len(x.dims) != 2:
            raise GenerationRefused()
        nm = self.fresh()
        dims = [x.dims[1], x.dims[0]]
        self.emit(Tens(nm, dims, x.dtype),
                  f"{nm} = te.compute({self.shape_text(dims)}, lambda i, j: {x.name}[j, i], "
                  f"name={nm!r})")

    def op_cast(self, x):
        to = self.src.pick([d for d in self.cfg.dtypes if d != x.dtype] or [x.dtype])
        nm = self.fresh()
        iv = self.idx(len(x.dims))
        ld = f"{x.name}[{', '.join(iv)}]"
        if x.dtype.startswith("float") and not to.startswith("float"):
            # keep float -> int conversions in range (out of range is undefined behaviour in
            # LLVM's fptosi and differs from numpy): the float may come from an int tensor
            ld = (f"te.floor(tir.min(tir.max({ld} * 4.0, tir.const(-100.0, {x.dtype!r})), "
                  f"tir.const(100.0, {x.dtype!r})))")
        self.emit(Tens(nm, list(x.dims), to),
                  f"{nm} = te.compute({self.shape_text(x.dims)}, lambda {', '.join(iv)}: "
                  f"({ld}).astype({to!r}), name={nm!r})")

    def _reducer(self):
        return self.src.pick(["te.sum", "te.max", "te.min"])

    def op_window(self, x):
        nm = self.fresh()
        axis = self.src.int(0, len(x.dims) - 1)
        win = self.src.int(1, 3)
        dims = list(x.dims)
        dims[axis] = (dims[axis][0], dims[axis][1] - (win - 1))
        iv = self.idx(len(x.dims))
        rn = f"r{self.count}"
        idx = ", ".join(f"{v} + {rn}" if k == axis else v for k, v in enumerate(iv))
        red = self._reducer()
        if not self.fits(dims):
            raise GenerationRefused()
        self.case.run(f"{rn} = te.reduce_axis((0, {win}), name={rn!r})")
        self.emit(Tens(nm, dims, x.dtype, reduction=True),
                  f"{nm} = te.compute({self.shape_text(dims)}, lambda {', '.join(iv)}: "
                  f"{red}({x.name}[{idx}], axis={rn}), name={nm!r})")

    def op_rowsum(self, x):
        if len(x.dims) != 2:
            raise GenerationRefused()
        nm = self.fresh()
        axis = self.src.int(0, 1)           # the axis reduced away
        keep = x.dims[1 - axis]
        rn = f"k{self.count}"
        red = self._reducer() if self.src.flag(40) else "te.sum"
        idx = f"i, {rn}" if axis == 1 else f"{rn}, i"
        self.case.run(f"{rn} = te.reduce_axis((0, {self.extent_text(*x.dims[axis])}), "
                      f"name={rn!r})")
        self.emit(Tens(nm, [keep], x.dtype, reduction=True),
                  f"{nm} = te.compute({self.shape_text([keep])}, lambda i: "
                  f"{red}({x.name}[{idx}], axis={rn}), name={nm!r})")

    def op_matmul(self, x):
        if len(x.dims) != 2:
            raise GenerationRefused()
        ys = [t for t in self.case.tensors if len(t.dims) == 2 and t.dtype == x.dtype and
              t.dims[0][0] == x.dims[1][0]]
        if not ys:
            raise GenerationRefused()
        y = self.src.pick(ys)
        nm = self.fresh()
        kdim = (x.dims[1][0], min(x.dims[1][1], y.dims[0][1]))
        dims = [x.dims[0], y.dims[1]]
        rn = f"k{self.count}"
        if not self.fits(dims + [kdim]):
            raise GenerationRefused()
        self.case.run(f"{rn} = te.reduce_axis((0, {self.extent_text(*kdim)}), name={rn!r})")
        self.emit(Tens(nm, dims, x.dtype, reduction=True),
                  f"{nm} = te.compute({self.shape_text(dims)}, lambda i, j: "
                  f"te.sum({x.name}[i, {rn}] * {y.name}[{rn}, j], axis={rn}), name={nm!r})")


def _namespace():
    import tepad
    from tepad import te, tir
    return {"tepad": tepad, "te": te, "tir": tir, "np": np}


# ------------------------------------------------------------------------------- schedules

class _Sched:
    """Draws a schedule for the case's outputs, line by line."""

    def __init__(self, gen: _Gen):
        self.g = gen
        self.src = gen.src
        self.case = gen.case
        self.ns = gen.case.ns
        self.ivnames: dict = {}     # id(IterVar) -> python name
        self.tnames: dict = {}      # id(Operation) of stage's origin op -> python tensor name
        self.n_iv = 0

    # -- names --------------------------------------------------------------------------------
    def stage_expr(self, st):
        return f"s[{self.tnames[id(st.origin_op)]}]"

    def iv(self, st, iv):
        key = id(iv)
        if key not in self.ivnames:
            pos = next(k for k, x in enumerate(st.leaf_iter_vars) if x is iv)
            nm = f"{_ident(self.tnames[id(st.origin_op)])}_{_ident(iv.name)}_{self.n_iv}"
            self.n_iv += 1
            self.case.run(f"{nm} = {self.stage_expr(st)}.leaf_iter_vars[{pos}]")
            self.ivnames[key] = nm
        return self.ivnames[key]

    def any_iv(self, st, iv):
        """A name for any IterVar of ``st`` (leaf or not), via ``all_iter_vars``."""
        key = id(iv)
        if key not in self.ivnames:
            pos = next(k for k, x in enumerate(st.all_iter_vars) if x is iv)
            nm = f"{_ident(self.tnames[id(st.origin_op)])}_{_ident(iv.name)}_{self.n_iv}"
            self.n_iv += 1
            self.case.run(f"{nm} = {self.stage_expr(st)}.all_iter_vars[{pos}]")
            self.ivnames[key] = nm
        return self.ivnames[key]

    def new_ivs(self, st, base):
        names = []
        for suffix in base:
            nm = f"{_ident(self.tnames[id(st.origin_op)])}_{suffix}{self.n_iv}"
            self.n_iv += 1
            names.append(nm)
        return names

    # -- the schedule -------------------------------------------------------------------------
    def draw(self):
        case, src = self.case, self.src
        outs = self.choose_outputs()
        case.outputs = outs
        case.sched_start = len(case.lines)
        case.run(f"s = te.create_schedule([{', '.join(t.name + '.op' for t in outs)}])")
        s = self.ns["s"]
        case.placeholders = [t for t in case.placeholders if self.ns[t.name].op in s.stage_map]
        for t in case.tensors:
            self.tnames[id(self.ns[t.name].op)] = t.name
        self.illegal_at = src.int(0, 4) if src.flag(self.g.cfg.illegal_rate) else None
        self.frozen = False     # an accepted illegal step: no later attachment may undo it
        self.dataflow_rewrites(s)
        self.layout_on = src.flag(self.g.cfg.layout_percent)
        if self.layout_on:      # layouts of inputs (the caller passes physical arrays)
            for st in list(s.stages):
                if not _is_compute(st) and id(st.origin_op) in self.tnames:
                    self.maybe_layout(st)
        if self.illegal_at == 0:
            self.illegal_step(s)
        order = [st for st in reversed(s.stages) if _is_compute(st)]
        for k, st in enumerate(order):
            if self.layout_on:  # before any loop transform: the axes must be adjacent leaves
                self.maybe_layout(st)
            self.loops(st)
            if self.illegal_at == 1 and k == len(order) // 2:
                self.illegal_step(s)
            for hook in LAYOUT_HOOKS:
                hook(case, src, self.tnames[id(st.origin_op)])
            if not st.is_output and not self.frozen:
                self.attach(s, st)
                self.maybe_rolling(s, st)
        if self.illegal_at is not None and self.illegal_at >= 2:
            self.illegal_step(s)

    def choose_outputs(self):
        ts = [t for t in self.case.tensors if not t.placeholder]
        last = ts[-1]
        if self.g.cfg.single_output:
            return [last]
        used = set()
        for t in ts:
            obj = self.ns[t.name]
            for inp in obj.op.input_tensors:
                used.add(id(inp.op))
        sinks = [t for t in ts if id(self.ns[t.name].op) not in used and t is not last]
        outs = [last] + [t for t in sinks if self.src.flag(50)]
        if len(ts) > 1 and self.src.flag(8):     # an output that is also read by another stage
            extra = self.src.pick(ts[:-1])
            if extra not in outs:
                outs.append(extra)
        return outs

    # dataflow: cache_write / cache_read ---------------------------------------------------------
    def dataflow_rewrites(self, s):
        pct = self.g.cfg.cache_percent
        for t in list(self.case.tensors):
            obj = self.ns[t.name]
            st = s.stage_map.get(obj.op)
            if st is None:
                continue
            if not t.placeholder and self.src.flag(pct) and not st.relations:
                nm = f"{t.name}_l"
                self.case.run(f"{nm} = s.cache_write({t.name}, 'local')")
                self.tnames[id(self.ns[nm].op)] = nm
            if self.src.flag(pct):
                readers = [r for r in s.stages if _is_compute(r) and
                           s[obj].op.output(obj.value_index) in r.op.input_tensors]
                if not readers:
                    continue
                chosen = [r for r in readers if self.src.flag(60)] or readers[:1]
                rnames = ", ".join(self.tnames[id(r.origin_op)] for r in chosen)
                nm = f"{t.name}_s"
                self.case.run(f"{nm} = s.cache_read({t.name}, 'shared', [{rnames}])")
                self.tnames[id(self.ns[nm].op)] = nm

    # loop transforms + annotations ------------------------------------------------------------
    def loops(self, st):
        src, run = self.src, self.case.run
        se = self.stage_expr(st)
        # a consumer of a stencil/window producer: sometimes tile the window axis first, so
        # the producer can be computed per tile (and made a rolling buffer)
        windows = [a for _, axes in rolling_producers(self.ns["s"], st) for a in axes]
        if windows and src.flag(70):
            a = _alias_through_layouts(st, src.pick(windows))
            if a is not None and any(x is a for x in st.leaf_iter_vars):
                name = self.iv(st, a)
                o, i = self.new_ivs(st, ("o", "i"))
                how = "nparts" if src.flag(20) else "factor"
                run(f"{o}, {i} = {se}.split({name}, {how}={src.pick([4, 2, 3, 5])})")
                self._bind(o, i)
        for _ in range(src.int(0, 4)):
            leaves = list(st.leaf_iter_vars)
            if not leaves:
                break
            action = src.pick(["split", "split", "fuse", "reorder", "tile"])
            if action == "split":
                iv = src.pick(leaves)
                name = self.iv(st, iv)
                amount = src.pick([2, 3, 4, 1, 5, 8, 16])
                o, i = self.new_ivs(st, ("o", "i"))
                how = "nparts" if src.flag(35) else "factor"
                run(f"{o}, {i} = {se}.split({name}, {how}={amount})")
                self._bind(o, i)
            elif action == "fuse" and len(leaves) >= 2:
                k = src.int(0, len(leaves) - 2)
                a, b = self.iv(st, leaves[k]), self.iv(st, leaves[k + 1])
                (f,) = self.new_ivs(st, ("f",))
                run(f"{f} = {se}.fuse({a}, {b})")
                self._bind(f)
            elif action == "reorder" and len(leaves) >= 2:
                perm = list(leaves)
                # a few random swaps; choice 0 keeps the order
                for _ in range(src.int(0, len(perm))):
                    a, b = src.int(0, len(perm) - 1), src.int(0, len(perm) - 1)
                    perm[a], perm[b] = perm[b], perm[a]
                run(f"{se}.reorder({', '.join(self.iv(st, x) for x in perm)})")
            elif action == "tile" and len(leaves) >= 2:
                k = src.int(0, len(leaves) - 2)
                x, y = self.iv(st, leaves[k]), self.iv(st, leaves[k + 1])
                fx, fy = src.pick([2, 3, 4, 5]), src.pick([2, 3, 4, 5])
                names = self.new_ivs(st, ("xo", "yo", "xi", "yi"))
                run(f"{', '.join(names)} = {se}.tile({x}, {y}, {fx}, {fy})")
                self._bind(*names)
        leaves = list(st.leaf_iter_vars)
        if not leaves:
            return
        data = [iv for iv in leaves if iv.iter_type.name == "DataPar"]
        if data and src.flag(35):
            iv = leaves[-1] if src.int(0, 3) else src.pick(data)
            if iv.iter_type.name == "DataPar":
                run(f"{se}.vectorize({self.iv(st, iv)})")
        if src.flag(20):
            iv = src.pick(leaves)
            run(f"{se}.unroll({self.iv(st, iv)})")
        if data and src.flag(20):
            iv = data[0] if src.int(0, 2) else src.pick(data)
            run(f"{se}.parallel({self.iv(st, iv)})")

    def _bind(self, *names):
        for nm in names:
            self.ivnames[id(self.ns[nm])] = nm

    # attachment ---------------------------------------------------------------------------------
    def attach(self, s, st):
        src, run = self.src, self.case.run
        se = self.stage_expr(st)
        if not st.layout_transforms:
            # a stencil producer: often computed per tile of its consumer (rolling_buffer)
            points = legal_attach_points(s, st)
            rolling = [(p, iv) for p, iv in points
                       if rolling_applicable(s, st, p, iv)]
            if rolling and src.flag(70):
                p, iv = src.pick(rolling)
                run(f"{se}.compute_at({self.stage_expr(p)}, {self.iv(p, iv)})")
                return
        choice = src.int(0, 5)
        if choice == 1:
            run(f"{se}.compute_root()")
        elif choice == 2 and _can_inline(st):
            run(f"{se}.compute_inline()")
        elif choice >= 3 and st.layout_transforms:
            # transform_layout needs the whole tensor in one loop nest: a stage with a layout
            # stays at the root (tepad refuses it at lower time otherwise, by design)
            return
        elif choice >= 3:
            points = legal_attach_points(s, st)
            if points:
                p, iv = src.pick(points)
                run(f"{se}.compute_at({self.stage_expr(p)}, {self.iv(p, iv)})")

    # transform_layout -----------------------------------------------------------------------------
    def layout_map(self, names, permute_only=False, no_offset=False):
        """Text of a random injective layout mapping over ``names``; and its output count.

        Splits ``x // c, x % c`` (non-divisible extents give padding), offset splits
        ``(x + k) // c, (x + k) % c`` (padding at both ends), permutations, and sometimes a
        ``te.AXIS_SEPARATOR``. Choice 0 is the plain split of the first axis."""
        src = self.src
        outs = list(names)
        kinds = ["split", "offset_split", "split_permute"] + (["permute"] if len(names) > 1
                                                              else [])
        if permute_only:
            if len(names) < 2:
                return None, 0
            kinds = ["permute"]
        elif no_offset:
            kinds.remove("offset_split")
        kind = src.pick(kinds)
        if kind != "permute":
            k = src.int(0, len(outs) - 1)
            c = src.pick([4, 3, 2, 5, 8])
            x = outs[k]
            if kind == "offset_split":
                x = f"({x} + {src.int(1, c - 1)})"
            hi, lo = f"{x} // {c}", f"{x} % {c}"
            where = src.int(0, 2)
            if where == 0:
                outs[k:k + 1] = [hi, lo]
            elif where == 1:             # outer part first (NCHWc-like)
                outs[k:k + 1] = [lo]
                outs.insert(0, hi)
            else:                        # inner part last
                outs[k:k + 1] = [hi]
                outs.append(lo)
        if kind in ("permute", "split_permute") and len(outs) > 1:
            a = src.int(0, len(outs) - 1)
            b = (a + 1 + src.int(0, len(outs) - 2)) % len(outs)
            outs[a], outs[b] = outs[b], outs[a]
        n_out = len(outs)
        if n_out >= 2 and src.flag(25):
            outs.insert(src.int(1, n_out - 1), "te.AXIS_SEPARATOR")
        return f"lambda {', '.join(names)}: [{', '.join(outs)}]", n_out

    def pad_text(self, dtype):
        r = self.src.int(0, 5)
        if r <= 2:
            return ""                                  # None: the padding is never read
        if r <= 4:
            if dtype.startswith("float"):
                return f", pad_value={self.src.pick(['0.0', '-1.5', '3.0'])}"
            return f", pad_value={self.src.pick(['0', '-1', '7'])}"
        return f", pad_value=lambda *ix: tir.undef({dtype!r})"

    def maybe_layout(self, st):
        """Sometimes one or two transform_layout calls on ``st`` (placeholder or compute)."""
        src = self.src
        if not src.flag(35):
            return
        tname = self.tnames[id(st.origin_op)]
        t = self.ns[tname]
        ndim = len(t.shape)
        if ndim == 0 or getattr(st, "relations", None):
            return              # (an earlier illegal step may already have split an axis)
        se = self.stage_expr(st)
        symbolic = any(isinstance(b, str) for b in self.case.bases.values())
        # A splitting layout on a symbolic *argument* can leave a size variable only inside
        # derived dimensions ((n + 3) // 4), which no array can bind: build refuses that with
        # a TepadError by design, so arguments get permutations only when sizes are symbolic.
        permute_only = symbolic and (st.is_output or not _is_compute(st))
        no_offset = False
        names = ["i", "j", "k", "l"][:ndim]
        text, n_out = self.layout_map(names, permute_only, no_offset)
        if text is None:
            return
        pad = self.pad_text(t.dtype)
        self.case.run(f"{se}.transform_layout({text}{pad})")
        if src.flag(20):        # a second transform, over the first one's output indices
            text, _ = self.layout_map([f"x{k}" for k in range(n_out)], permute_only,
                                      no_offset)
            if text is not None:
                self.case.run(f"{se}.transform_layout({text}{self.pad_text(t.dtype)})")

    # rolling_buffer -------------------------------------------------------------------------------
    def maybe_rolling(self, s, st):
        if st.attach_type.name != "Scope" or \
                not rolling_applicable(s, st):
            return
        if self.src.flag(self.g.cfg.rolling_percent):
            self.case.run(f"{self.stage_expr(st)}.rolling_buffer()")

    # deliberately illegal steps -------------------------------------------------------------------
    def illegal_step(self, s):
        n_refused = len(self.case.refused)
        n_illegal = len(self.case.illegal)
        self._illegal_step(s)
        if len(self.case.illegal) > n_illegal and len(self.case.refused) == n_refused:
            self.frozen = True

    def _illegal_step(self, s):
        src, case = self.src, self.case
        stages = [st for st in s.stages if _is_compute(st)]
        kinds = ["split_twice", "compute_at_nonleaf", "compute_at_not_enclosing",
                 "compute_at_cycle", "reorder_foreign", "fuse_nonadjacent", "vectorize_reduce",
                 "inline_output", "inline_reduce", "cache_write_after_split",
                 "compute_at_self", "attach_output", "rolling_root", "rolling_output",
                 "layout_not_injective", "layout_pad_reads_other"]
        kind = src.pick(kinds)
        st = src.pick(stages)
        se = self.stage_expr(st)
        if kind == "split_twice":
            rel = [r for r in st.relations if type(r).__name__ in ("Split", "Fuse")]
            if rel:
                r = rel[0]
                parent = getattr(r, "parent", None) or getattr(r, "outer", None)
                case.run(f"{se}.split({self.any_iv(st, parent)}, factor=2)", illegal=kind)
            elif st.leaf_iter_vars:
                iv = st.leaf_iter_vars[0]
                name = self.iv(st, iv)
                o, i = self.new_ivs(st, ("o", "i"))
                case.run(f"{o}, {i} = {se}.split({name}, factor=2)")
                self._bind(o, i)
                case.run(f"{se}.split({name}, factor=3)", illegal=kind)
        elif kind == "compute_at_nonleaf":
            targets = [p for p in stages if p is not st and p.relations and
                       any(type(r).__name__ == "Split" for r in p.relations)]
            if targets and not st.is_output:
                p = src.pick(targets)
                r = next(r for r in p.relations if type(r).__name__ == "Split")
                case.run(f"{se}.compute_at({self.stage_expr(p)}, {self.any_iv(p, r.parent)})",
                         illegal=kind)
        elif kind == "compute_at_not_enclosing":
            if st.is_output:
                return
            cons = effective_consumers(s, st)
            roots = [c for c in cons if c.attach_type.name == "GroupRoot"]
            targets = [p for p in stages if p is not st and p.leaf_iter_vars and
                       p.attach_type.name != "Inline" and any(c is not p for c in roots)
                       and not _attached_inside(p, st)]
            if targets:
                p = src.pick(targets)
                iv = src.pick(p.leaf_iter_vars)
                case.run(f"{se}.compute_at({self.stage_expr(p)}, {self.iv(p, iv)})",
                         illegal=kind)
        elif kind == "compute_at_cycle":
            inner = [x for x in stages if x.attach_type.name == "Scope"]
            if inner:
                x = src.pick(inner)
                p = x.attach_stage
                if p.is_output or not x.leaf_iter_vars:
                    return
                case.run(f"{self.stage_expr(p)}.compute_at({self.stage_expr(x)}, "
                         f"{self.iv(x, x.leaf_iter_vars[0])})", illegal=kind)
        elif kind == "reorder_foreign":
            others = [p for p in stages if p is not st and p.leaf_iter_vars]
            if others and st.leaf_iter_vars:
                p = src.pick(others)
                case.run(f"{se}.reorder({self.iv(p, p.leaf_iter_vars[0])}, "
                         f"{self.iv(st, st.leaf_iter_vars[0])})", illegal=kind)
        elif kind == "fuse_nonadjacent":
            if len(st.leaf_iter_vars) >= 3:
                a, b = st.leaf_iter_vars[0], st.leaf_iter_vars[2]
                case.run(f"{se}.fuse({self.iv(st, a)}, {self.iv(st, b)})", illegal=kind)
        elif kind == "vectorize_reduce":
            reds = [iv for iv in st.leaf_iter_vars if iv.iter_type.name == "CommReduce"]
            if reds:
                what = src.pick(["vectorize", "parallel"])
                case.run(f"{se}.{what}({self.iv(st, reds[0])})", illegal=kind)
        elif kind == "inline_output":
            outs = [x for x in stages if x.is_output]
            x = src.pick(outs)
            case.run(f"{self.stage_expr(x)}.compute_inline()", illegal=kind)
        elif kind == "inline_reduce":
            reds = [x for x in stages if x.op.reduce_axis and not x.is_output]
            if reds:
                case.run(f"{self.stage_expr(src.pick(reds))}.compute_inline()", illegal=kind)
        elif kind == "cache_write_after_split":
            if st.relations:
                nm = f"{self.tnames[id(st.origin_op)]}_bad"
                case.run(f"{nm} = s.cache_write({self.tnames[id(st.origin_op)]}, 'local')",
                         illegal=kind)
        elif kind == "compute_at_self":
            if st.leaf_iter_vars and not st.is_output:
                case.run(f"{se}.compute_at({se}, {self.iv(st, st.leaf_iter_vars[0])})",
                         illegal=kind)
        elif kind == "attach_output":
            outs = [x for x in stages if x.is_output]
            x = src.pick(outs)
            others = [p for p in stages if p is not x and p.leaf_iter_vars]
            if others:
                p = src.pick(others)
                case.run(f"{self.stage_expr(x)}.compute_at({self.stage_expr(p)}, "
                         f"{self.iv(p, p.leaf_iter_vars[0])})", illegal=kind)
        elif kind == "rolling_root":
            # a rolling buffer needs a compute_at; at the root lower() refuses it (no later
            # attachment happens: the accepted step freezes the schedule)
            roots = [x for x in stages if not x.is_output and x.attach_type.name == "GroupRoot"]
            if roots:
                case.run(f"{self.stage_expr(src.pick(roots))}.rolling_buffer()", illegal=kind)
        elif kind == "rolling_output":
            x = src.pick([x for x in stages if x.is_output])
            case.run(f"{self.stage_expr(x)}.rolling_buffer()", illegal=kind)
        elif kind == "layout_not_injective":
            cands = []
            for x in s.stages:
                if id(x.origin_op) not in self.tnames or x.attach_type.name == "Inline":
                    continue
                shape = self.ns[self.tnames[id(x.origin_op)]].shape
                for d, e in enumerate(shape):
                    if type(e).__name__ == "IntImm" and int(e.value) >= 3:
                        cands.append((x, d, len(shape)))
            if cands:
                x, d, nd = src.pick(cands)
                names = ["i", "j", "k", "l"][:nd]
                outs = [f"{v} % 2" if k == d else v for k, v in enumerate(names)]
                case.run(f"{self.stage_expr(x)}.transform_layout(lambda {', '.join(names)}: "
                         f"[{', '.join(outs)}])", illegal=kind)
        elif kind == "layout_pad_reads_other":
            a = self.case.placeholders[0].name if self.case.placeholders else None
            cands = [x for x in stages if x.attach_type.name != "Inline"]
            if a is not None and cands:
                x = src.pick(cands)
                nd = len(self.ns[self.tnames[id(x.origin_op)]].shape)
                names = ["i", "j", "k", "l"][:nd]
                zeros = ", ".join("0" for _ in self.ns[a].shape)
                case.run(f"{self.stage_expr(x)}.transform_layout(lambda {', '.join(names)}: "
                         f"[{', '.join(reversed(names))}], pad_value=lambda *ix: {a}[{zeros}])",
                         illegal=kind)


def _ident(name):
    return "".join(c if c.isalnum() else "_" for c in str(name))


def _is_compute(st):
    return type(st.op).__name__ == "ComputeOp"


def _can_inline(st):
    return not st.is_output and not st.op.reduce_axis and st.op.num_outputs == 1


def consumers(s, st):
    """Stages whose current op reads ``st``'s current op."""
    outs = {id(st.op.output(k)) for k in range(st.op.num_outputs)}
    res = []
    for c in s.stages:
        if _is_compute(c) and any(t.op is st.op for t in c.op.input_tensors):
            res.append(c)
    del outs
    return res


def effective_consumers(s, st, _seen=None):
    """Consumers, looking through stages that will be inlined."""
    out = []
    for c in consumers(s, st):
        if c.attach_type.name == "Inline":
            out.extend(x for x in effective_consumers(s, c) if x not in out)
        elif c not in out:
            out.append(c)
    return out


def _inside(c, p, pos):
    """Is stage ``c`` computed inside leaf loop ``pos`` of stage ``p``?"""
    if c is p:
        return True
    x = c
    while x.attach_type.name == "Scope":
        tgt, iv = x.attach_stage, x.attach_ivar
        if tgt is p:
            k = next((k for k, v in enumerate(p.leaf_iter_vars) if v is iv), None)
            return k is not None and k >= pos
        x = tgt
    return False


def _attached_inside(p, st):
    """Is ``p`` (transitively) attached inside ``st``?"""
    x = p
    while x.attach_type.name == "Scope":
        if x.attach_stage is st:
            return True
        x = x.attach_stage
    return False


def legal_attach_points(s, st):
    """Every (stage, leaf IterVar) where ``st`` may be computed: all its consumers inside."""
    cons = effective_consumers(s, st)
    if not cons:
        return []
    out = []
    for p in s.stages:
        if p is st or not _is_compute(p) or p.attach_type.name in ("Inline", "InlinedAlready"):
            continue
        if _attached_inside(p, st):
            continue
        for pos, iv in enumerate(p.leaf_iter_vars):
            if all(_inside(c, p, pos) for c in cons):
                out.append((p, iv))
    return out


def _leaves_of(st, iv):
    """The leaf IterVars of ``st`` derived from ``iv`` through its relations."""
    out, todo, seen = [], [iv], set()
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if any(l is x for l in st.leaf_iter_vars):
            out.append(x)
            continue
        for r in st.relations:
            name = type(r).__name__
            if name == "Split" and r.parent is x:
                todo += [r.outer, r.inner]
            elif name == "Fuse" and (r.outer is x or r.inner is x):
                todo.append(r.fused)
            elif name == "Transform" and any(v is x for v in r.original_vars):
                todo += list(r.transformed_vars)
    return out


def _alias_through_layouts(st, iv):
    """``iv`` itself, or the transformed IterVar that equals it (a permuting layout)."""
    x = iv
    while True:
        rel = next((r for r in st.relations if type(r).__name__ == "Transform" and
                    any(v is x for v in r.original_vars)), None)
        if rel is None:
            return x
        k = next(k for k, v in enumerate(rel.original_vars) if v is x)
        inv = rel.inverse[k]
        y = next((tv for tv in rel.transformed_vars if tv.var is inv), None)
        if y is None:
            return None
        x = y


def _window_axes(c, p_op, inside_vars=None):
    """Data axes ``a`` of stage ``c`` such that ``c`` reads ``p_op`` with index ``a + offsets``
    on exactly one dimension (the offsets: constants and constant-extent reduction axes, in
    ``inside_vars`` when given, spanning more than one value) and ``a`` in no other one."""
    from ..tir.expr import ProducerLoad
    from ..tir.functor import collect_vars, post_order_visit
    loads = []
    for b in c.op.body:
        post_order_visit(b, lambda n: loads.append(n) if isinstance(n, ProducerLoad) and
                         n.producer.op is p_op else None)
    if not loads:
        return []
    ndim = len(loads[0].indices)
    out = []
    for a in c.op.axis:
        dims = [d for d in range(ndim) if any(a.var in collect_vars(ld.indices[d])
                                              for ld in loads)]
        if len(dims) != 1:
            continue
        d = dims[0]
        # the region must be a box (exact bounds give non-box regions for stencils that
        # move along two dims at once, which rolling_buffer refuses by design)
        if len({tuple(str(e) for k, e in enumerate(ld.indices) if k != d)
                for ld in loads}) != 1:
            continue
        lo, hi, ok = None, None, True
        for ld in loads:
            f = affine_terms(ld.indices[d])
            if f is None or f[0].get(a.var) != 1:
                ok = False
                break
            l_, h_ = f[1], f[1]
            for v, coef in f[0].items():
                if v is a.var:
                    continue
                rv = next((r for r in c.op.reduce_axis if r.var is v), None)
                if rv is None or type(rv.dom.extent).__name__ != "IntImm" or \
                        (inside_vars is not None and v not in inside_vars):
                    ok = False
                    break
                span = coef * (int(rv.dom.extent.value) - 1)
                l_, h_ = l_ + min(0, span), h_ + max(0, span)
            if not ok:
                break
            lo = l_ if lo is None else min(lo, l_)
            hi = h_ if hi is None else max(hi, h_)
        if ok and hi > lo:
            out.append(a)
    return out


def rolling_producers(s, c):
    """Stages that could roll inside ``c``: ``(stage, axes of c it is read along)``."""
    out = []
    for p in s.stages:
        if not _is_compute(p) or p.is_output or p.layout_transforms or p is c:
            continue
        if consumers(s, p) != [c]:
            continue
        axes = _window_axes(c, p.op)
        if axes:
            out.append((p, axes))
    return out


def rolling_applicable(s, st, c=None, L=None):
    """Will ``st.rolling_buffer()`` be accepted (interval and exact bounds) when ``st`` is
    computed at ``c``'s loop ``L`` (default: where it is now)?

    Conservative: ``c`` is ``st``'s only consumer and is at the root; ``c`` reads ``st`` with
    index ``a + offsets`` on one dimension only (``_window_axes``: a stencil or a window) where
    ``a`` is split once by a constant factor (or nparts of a constant extent), its outer loop
    at or outside ``L`` and its inner loop inside ``L``; the other variables of that dimension
    only have loops inside ``L``; the loops from the outer one down to ``L`` are serial or
    unrolled; ``st`` keeps its logical layout. Consecutive iterations of the outer loop then
    overlap by the offset span (the region min is ``outer * factor + k``)."""
    if c is None:
        if st.attach_type.name != "Scope":
            return False
        c, L = st.attach_stage, st.attach_ivar
    if st.is_output or st.layout_transforms:
        return False
    if consumers(s, st) != [c] or effective_consumers(s, st) != [c]:
        return False
    if c.attach_type.name != "GroupRoot" or not _is_compute(c):
        return False
    leaves = list(c.leaf_iter_vars)
    pos = {id(v): k for k, v in enumerate(leaves)}
    if id(L) not in pos:
        return False
    lpos = pos[id(L)]
    inside_vars = set()
    for iv in list(c.op.axis) + list(c.op.reduce_axis):
        ls = _leaves_of(c, iv)
        if ls and all(pos[id(x)] > lpos for x in ls):
            inside_vars.add(iv.var)
    for a in _window_axes(c, st.op, inside_vars):
        alias = _alias_through_layouts(c, a)
        if alias is None:
            continue
        split = next((r for r in c.relations if type(r).__name__ == "Split" and
                      r.parent is alias), None)
        if split is None or id(split.outer) not in pos or id(split.inner) not in pos:
            continue
        if not pos[id(split.outer)] <= lpos < pos[id(split.inner)]:
            continue
        ext = alias.dom.extent if alias.dom is not None else None
        ext = int(ext.value) if type(ext).__name__ == "IntImm" else None
        if split.factor is None:
            if ext is None:
                continue
            n_outer = min(int(getattr(split.nparts, "value", split.nparts)), ext)
        else:
            f = int(getattr(split.factor, "value", split.factor))
            n_outer = None if ext is None else -(-ext // f)
        if n_outer is not None and n_outer < 2:
            # one iteration: the loop disappears and nothing rolls; tepad refuses that
            # ("no dimension overlaps"), a degenerate case reported, not drawn
            continue
        if any(c.leaf_kind(x) is not None and c.leaf_kind(x).name in
               ("Vectorized", "Parallelized")
               for x in leaves[pos[id(split.outer)]:lpos + 1]):
            continue
        return True
    return False


# ------------------------------------------------------------------------------- entry points

def generate(src: Source, cfg: Config | None = None) -> Case:
    """Draw a program and a schedule. May raise what the drawn (legal) steps raise."""
    cfg = cfg or Config()
    gen = _Gen(src, cfg)
    gen.define()
    _Sched(gen).draw()
    case = gen.case
    case.data_seed = src.int(0, 2 ** 16)
    syms = sorted({b for b in case.bases.values() if isinstance(b, str)})
    if syms:
        for _ in range(src.int(1, 2)):
            values = {}
            for base, name in case.bases.items():
                if isinstance(name, str):
                    need = 1 - min([o for t in case.tensors for b, o in t.dims if b == base] +
                                   [0])
                    values[name] = need + src.int(0, 9)
            case.base_values.append(values)
    return case


def draw_program(draw):
    """Hypothesis-facing generator kept for tests: ``(schedule, args, inputs, out, log)``.

    One float32/int32 placeholder ``A`` of constant shape, one output, legal schedules only,
    logical layouts (no transform_layout: the caller passes logical arrays; rolling buffers
    are drawn). ``log`` is the list of code lines (a runnable reproducer when joined).
    """
    cfg = Config(max_inputs=1, dtypes=("float32", "int32"), symbolic_percent=0,
                 illegal_rate=0, single_output=True, max_stages=4, layout_percent=0)
    case = generate(HypothesisSource(draw), cfg)
    ns = case.ns
    A = ns["A"]
    out = ns[case.outputs[0].name]
    rng = np.random.default_rng(case.data_seed)
    a = random_array(rng, case.concrete_shape(case.placeholders[0], {}), A.dtype)
    return ns["s"], [A, out], [a], out, list(case.lines)


def random_array(rng, shape, dtype):
    if dtype.startswith("float"):
        return rng.standard_normal(shape).astype(dtype)
    lim = 8 if dtype == "int8" else 100
    return rng.integers(-lim, lim, size=shape).astype(dtype)


__all__ = ["Source", "RandomSource", "ReplaySource", "HypothesisSource", "Config", "Case",
           "generate", "draw_program", "LAYOUT_HOOKS", "legal_attach_points",
           "effective_consumers", "random_array"]
