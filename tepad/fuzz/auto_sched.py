"""Auto-scheduler cases for the schedule fuzzer: a compute (a known operator at random small
sizes, or a random DAG from ``definitions.py``) under a random annotation of its
auto-scheduler sketch (``tepad.auto_scheduler.Sketch``: random tile sizes, unroll budget,
compute locations, packed inputs, vector axes and ragged register blocks, sometimes mutated
or crossed over, as the search does). The CPU sketch is made for the host's target or for
SSE2's (4 lanes, 16 registers, where ragged blocks are offered); the case builds for the
host either way.
The known operators include an argmax (a tuple reduction with two outputs) and a
``te.scan``, which the GPU sketch binds to threads.

The schedule lines of the case are the sketch state's printed Python code
(``ComputeDAG.print_python_code_from_state``, what ``print_best`` shows), executed in the
case's namespace, so the reproducer is the code a user would paste. ``generate_auto`` also
checks that this code and the state's replay (``apply_steps_from_state``) lower to the same
function; the runner then checks the numbers against the oracle in both bound modes.

Every random choice goes through the case's ``Source`` (``SourceRandom`` gives the sketch
the ``random.Random`` methods it uses), so cases replay, shrink and run under hypothesis.

With ``Config(gpu=True)`` the sketch is the GPU one (``GpuSketch`` for ``"cuda"``: thread
bindings, local accumulators, shared inputs) and the runner builds the case for ``"cuda"``
through the emulator with its race check; computes with stages the GPU rules leave alone
(reductions without spatial loops, scans) are drawn again.
"""
from __future__ import annotations

import tepad

from ..auto_scheduler.compute_dag import ComputeDAG
from ..auto_scheduler.gpu_sketch import GpuSketch
from ..auto_scheduler.sketch import Sketch
from ..errors import TepadError
from .case import Case, Config, Tens
from .definitions import DefinitionDrawer, exec_namespace
from .sources import Source


class SourceRandom:
    """``random.Random``'s ``choice`` and ``random`` drawn from a ``Source``."""

    def __init__(self, src: Source):
        self.src = src

    def choice(self, seq):
        return self.src.pick(seq)

    def random(self) -> float:
        return self.src.int(0, 999) / 1000.0


def _known(src: Source):
    """One of the operators the auto-scheduler is benchmarked on, at small random sizes:
    ``(lines, placeholders, outputs)`` with ``placeholders``/``outputs`` as ``(name, shape,
    dtype)``."""
    kind = src.pick(["matmul_add", "conv2d", "depthwise", "softmax", "batch_matmul",
                     "pool", "rowsum", "chain", "argmax", "scan"])
    n = lambda lo, hi: src.int(lo, hi)  # noqa: E731 - a short alias for the sizes
    f32 = "float32"
    if kind == "matmul_add":
        N, L, M = n(1, 24), n(1, 40), n(1, 24)
        return ([f"A = te.placeholder(({N}, {L}), {f32!r}, name='A')",
                 f"B = te.placeholder(({L}, {M}), {f32!r}, name='B')",
                 f"C = te.placeholder(({N}, {M}), {f32!r}, name='C')",
                 f"k = te.reduce_axis((0, {L}), name='k')",
                 f"matmul = te.compute(({N}, {M}), lambda i, j: te.sum(A[i, k] * B[k, j], "
                 "axis=k), name='matmul')",
                 f"out = te.compute(({N}, {M}), lambda i, j: matmul[i, j] + C[i, j], "
                 "name='out')"],
                [("A", (N, L), f32), ("B", (L, M), f32), ("C", (N, M), f32)],
                [("out", (N, M), f32)])
    if kind == "batch_matmul":
        b, N, L, M = n(1, 3), n(1, 16), n(1, 24), n(1, 16)
        return ([f"A = te.placeholder(({b}, {N}, {L}), {f32!r}, name='A')",
                 f"B = te.placeholder(({b}, {L}, {M}), {f32!r}, name='B')",
                 f"k = te.reduce_axis((0, {L}), name='k')",
                 f"bmm = te.compute(({b}, {N}, {M}), lambda z, i, j: te.sum(A[z, i, k] * "
                 "B[z, k, j], axis=k), name='bmm')"],
                [("A", (b, N, L), f32), ("B", (b, L, M), f32)], [("bmm", (b, N, M), f32)])
    if kind in ("conv2d", "depthwise"):
        c, h, w, kh = n(1, 4), n(2, 9), n(2, 9), n(1, 3)
        f = c if kind == "depthwise" else n(1, 6)
        pad = n(0, 1)
        oh, ow = h + 2 * pad - kh + 1, w + 2 * pad - kh + 1
        if oh < 1 or ow < 1:
            kh, oh, ow = 1, h + 2 * pad, w + 2 * pad
        wshape = (c, 1, kh, kh) if kind == "depthwise" else (f, c, kh, kh)
        lines = [f"data = te.placeholder((1, {c}, {h}, {w}), {f32!r}, name='data')",
                 f"weight = te.placeholder({wshape}, {f32!r}, name='weight')",
                 f"pad = te.compute((1, {c}, {h + 2 * pad}, {w + 2 * pad}), "
                 f"lambda b, ci, y, x: te.if_then_else(te.all(y >= {pad}, y < {h + pad}, "
                 f"x >= {pad}, x < {w + pad}), data[b, ci, y - {pad}, x - {pad}], 0.0), "
                 "name='pad')",
                 f"ry = te.reduce_axis((0, {kh}), name='ry')",
                 f"rx = te.reduce_axis((0, {kh}), name='rx')"]
        if kind == "depthwise":
            lines.append(f"conv = te.compute((1, {c}, {oh}, {ow}), lambda b, ff, y, x: "
                         "te.sum(pad[b, ff, y + ry, x + rx] * weight[ff, 0, ry, rx], "
                         "axis=[ry, rx]), name='conv')")
        else:
            lines += [f"rc = te.reduce_axis((0, {c}), name='rc')",
                      f"conv = te.compute((1, {f}, {oh}, {ow}), lambda b, ff, y, x: "
                      "te.sum(pad[b, rc, y + ry, x + rx] * weight[ff, rc, ry, rx], "
                      "axis=[rc, ry, rx]), name='conv')"]
        relu = src.flag(50)
        if relu:
            lines.append(f"relu = te.compute((1, {f}, {oh}, {ow}), lambda b, ff, y, x: "
                         "te.max(conv[b, ff, y, x], 0.0), name='relu')")
        return (lines, [("data", (1, c, h, w), f32), ("weight", wshape, f32)],
                [("relu" if relu else "conv", (1, f, oh, ow), f32)])
    if kind == "softmax":
        N, M = n(1, 8), n(1, 40)
        return ([f"x = te.placeholder(({N}, {M}), {f32!r}, name='x')",
                 f"k1 = te.reduce_axis((0, {M}), name='k1')",
                 f"mx = te.compute(({N},), lambda i: te.max(x[i, k1], axis=k1), name='mx')",
                 f"e = te.compute(({N}, {M}), lambda i, j: te.exp(x[i, j] - mx[i]), "
                 "name='e')",
                 f"k2 = te.reduce_axis((0, {M}), name='k2')",
                 f"total = te.compute(({N},), lambda i: te.sum(e[i, k2], axis=k2), "
                 "name='total')",
                 f"out = te.compute(({N}, {M}), lambda i, j: e[i, j] / total[i], "
                 "name='out')"],
                [("x", (N, M), f32)], [("out", (N, M), f32)])
    if kind == "pool":
        c, h, w, k = n(1, 4), n(2, 12), n(2, 12), n(1, 3)
        oh, ow = h - k + 1, w - k + 1
        if oh < 1 or ow < 1:
            k, oh, ow = 1, h, w
        red = src.pick(["te.max", "te.sum"])
        return ([f"data = te.placeholder((1, {c}, {h}, {w}), {f32!r}, name='data')",
                 f"ry = te.reduce_axis((0, {k}), name='ry')",
                 f"rx = te.reduce_axis((0, {k}), name='rx')",
                 f"pool = te.compute((1, {c}, {oh}, {ow}), lambda b, ci, y, x: "
                 f"{red}(data[b, ci, y + ry, x + rx], axis=[ry, rx]), name='pool')"],
                [("data", (1, c, h, w), f32)], [("pool", (1, c, oh, ow), f32)])
    if kind == "rowsum":
        N, M = n(1, 6), n(1, 300)
        return ([f"a = te.placeholder(({N}, {M}), {f32!r}, name='a')",
                 f"k = te.reduce_axis((0, {M}), name='k')",
                 f"rsum = te.compute(({N},), lambda i: te.sum(a[i, k] * a[i, k], axis=k), "
                 "name='rsum')"],
                [("a", (N, M), f32)], [("rsum", (N,), f32)])
    if kind == "argmax":            # a tuple reduction: two outputs of one stage
        N, M = n(1, 12), n(1, 80)
        return (["argmax = te.comm_reducer(lambda x, y: (tir.Select(x[1] >= y[1], x[0], y[0]), "
                 "tir.Select(x[1] >= y[1], x[1], y[1])), lambda t0, t1: (tir.const(-1, t0), "
                 "tir.min_value(t1)), name='argmax')",
                 f"idx = te.placeholder(({N}, {M}), 'int32', name='idx')",
                 f"val = te.placeholder(({N}, {M}), {f32!r}, name='val')",
                 f"k = te.reduce_axis((0, {M}), name='k')",
                 f"t_idx, t_val = te.compute(({N},), lambda i: argmax((idx[i, k], val[i, k]), "
                 "axis=k), name='T')",
                 "T = t_idx  # printed schedule code names a stage by its operation's name"],
                [("idx", (N, M), "int32"), ("val", (N, M), f32)],
                [("t_idx", (N,), "int32"), ("t_val", (N,), f32)])
    if kind == "scan":
        T, N = n(1, 5), n(1, 40)
        return ([f"X = te.placeholder(({T}, {N}), {f32!r}, name='X')",
                 f"state = te.placeholder(({T}, {N}), {f32!r}, name='state')",
                 f"init = te.compute((1, {N}), lambda _, i: X[0, i], name='init')",
                 f"update = te.compute(({T}, {N}), lambda t, i: state[t - 1, i] * 0.5 + "
                 "X[t, i], name='update')",
                 "scan = te.scan(init, update, state, inputs=[X], name='scan')"],
                [("X", (T, N), f32)], [("scan", (T, N), f32)])
    N, M = n(1, 20), n(1, 40)
    return ([f"a = te.placeholder(({N}, {M}), {f32!r}, name='a')",
             f"b = te.placeholder(({N}, {M}), {f32!r}, name='b')",
             f"t1 = te.compute(({N}, {M}), lambda i, j: a[i, j] * 2.0 + b[i, j], name='t1')",
             f"t2 = te.compute(({N}, {M}), lambda i, j: te.max(t1[i, j], 0.5), name='t2')",
             f"out = te.compute(({N}, {M}), lambda i, j: t2[i, j] * b[i, j], name='out')"],
            [("a", (N, M), f32), ("b", (N, M), f32)], [("out", (N, M), f32)])


def _shape_tens(case: Case, name, shape, dtype, placeholder):
    """A ``Tens`` of constant ``shape`` (one size base per dimension)."""
    dims = []
    for k, e in enumerate(shape):
        case.bases[f"{name}{k}"] = int(e)
        dims.append((f"{name}{k}", 0))
    return Tens(name, dims, dtype, placeholder=placeholder)


def _draw_compute(src: Source, cfg: Config) -> Case:
    """The case's definitions: a known operator (half the time) or a random DAG of constant
    shape from ``definitions.py`` whose outputs are its unconsumed compute tensors."""
    if src.flag(50):
        lines, phs, outs = _known(src)
        case = Case()
        case.ns.update(exec_namespace())
        for line in lines:
            case.run(line)
        case.placeholders = [_shape_tens(case, *p, True) for p in phs]
        case.outputs = [_shape_tens(case, *o, False) for o in outs]
        case.tensors = case.placeholders + case.outputs
        return case
    rcfg = Config(max_stages=cfg.max_stages, max_inputs=cfg.max_inputs,
                  dtypes=("float32", "int32"), symbolic_percent=0, illegal_rate=0,
                  scan_percent=0)
    gen = DefinitionDrawer(src, rcfg)
    gen.define()
    case = gen.case
    consumed = set()
    for t in case.tensors:
        if not t.placeholder:
            consumed.update(x.op.name for x in case.ns[t.name].op.input_tensors)
    case.outputs = [t for t in case.tensors if not t.placeholder and t.name not in consumed]
    read, todo = set(), [case.ns[t.name].op for t in case.outputs]
    while todo:
        op = todo.pop()
        if op.name not in read:
            read.add(op.name)
            todo.extend(x.op for x in op.input_tensors)
    case.placeholders = [t for t in case.placeholders if t.name in read]
    return case


def generate_auto(src: Source, cfg: Config | None = None) -> Case:
    """A case whose schedule is a random annotation of the auto-scheduler's sketch of a
    drawn compute (see the module docstring)."""
    cfg = cfg or Config()
    for _ in range(8):
        case = _draw_compute(src, cfg)
        ns = case.ns
        tensors = [ns[t.name] for t in case.placeholders + case.outputs]
        dag = ComputeDAG(tensors)
        # the CPU sketch's rules read the target's lanes and registers; the host's or
        # SSE2's (16 registers: ragged register blocks), built for the host either way
        sketch_target = None if cfg.gpu else src.pick(["llvm", "llvm -mcpu=x86-64"])
        sketch = GpuSketch(dag, "cuda") if cfg.gpu else Sketch(dag, sketch_target)
        if not getattr(sketch, "unsupported", None):
            break
    else:
        raise TepadError("auto-scheduler GPU case: eight drawn computes had stages the GPU "
                         f"sketch rules do not schedule ({sketch.unsupported})")
    case.gpu = bool(cfg.gpu)
    rng = SourceRandom(src)
    params = sketch.default_params() if src.flag(15) else sketch.random_params(rng)
    for _ in range(src.int(0, 2)):
        params = sketch.mutate(params, rng)
    if src.flag(20):
        params = sketch.crossover(params, sketch.random_params(rng), rng) or params
    state = sketch.state(params)
    case.sched_start = len(case.lines)
    where = f" for {sketch_target!r}" if sketch_target else ""
    case.lines.append(f"# auto-scheduler sketch{where}, params = {params!r}")
    for line in dag.print_python_code_from_state(state).splitlines():
        case.run(line)
    replay, args = dag.apply_steps_from_state(state)
    printed = str(tepad.lower(ns["s"], tensors, simple_mode=True))
    replayed = str(tepad.lower(replay, args, simple_mode=True))
    if printed != replayed:
        raise TepadError("auto-scheduler: the printed schedule code and the state's replay "
                         f"lower differently\n--- printed code:\n{printed}\n--- replay:\n"
                         f"{replayed}")
    case.data_seed = src.int(0, 2 ** 16)
    return case


__all__ = ["SourceRandom", "generate_auto"]
