"""AutoTVM templates of the benchmark workloads W1-W6 (``benchmarks/run.py``): the examples'
schedules with their fixed numbers turned into knobs, so the best values are measured on the
machine at hand instead of assumed (the examples were tuned on a 16-lane AVX-512 host).

    tepad tune examples/tune_templates.py -n 20          tune all six (TUNE_ARGS below)
    tepad tune examples/tune_templates.py --template w2/matmul --tuner xgb

Each template also runs as a plain schedule: called outside ``apply_history_best`` it uses the
first choice of every knob, which is the example's own schedule where the knob lists start
with it (W2's and W4's lists start with the widths the example picks for the target the
template is instantiated for: ``with Target(...)`` or the task's target). ``benchmarks/bench_tune.py`` tunes them at the benchmark sizes.
"""
import importlib.util
from pathlib import Path

from tepad import te, tir, autotvm
from tepad.target import as_target

# small sizes for `tepad tune` and the tests; benchmarks/bench_tune.py passes the full ones
TUNE_ARGS = {
    "w1/elementwise": (256,),
    "w2/matmul": (128,),
    "w3/blur": (130,),
    "w4/conv2d": (8, 8, 10, 12),
    "w5/rowsum": (256, 14),
    "w6/maxpool": (34, 34),
}


def _example(stem):
    """The module examples/<stem>.py (a template whose schedule is an example's, with the
    example's numbers as knobs, calls the example's ``schedule``)."""
    spec = importlib.util.spec_from_file_location(f"tepad_example_{stem}",
                                                  Path(__file__).with_name(f"{stem}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _dividing(candidates, n):
    """The candidates that divide ``n`` (at least ``[n]``)."""
    return [c for c in candidates if n % c == 0] or [n]


def _first(choice, candidates):
    """``candidates`` with ``choice`` (the example's width for the current target) first, so
    that a template's default config is the example's schedule on every target."""
    return [choice] + [c for c in candidates if c != choice]


@autotvm.template("w1/elementwise")
def elementwise(n):
    """W1: ``max(A * B + 1, 0)``; row strips in parallel, the row vectorized in chunks."""
    A = te.placeholder((n, n), "float32", name="A")
    B = te.placeholder((n, n), "float32", name="B")
    C = te.compute((n, n), lambda i, j: tir.max(A[i, j] * B[i, j] + 1.0, 0.0), name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    cfg = autotvm.get_config()
    cfg.define_knob("strip", _dividing([16, 1, 4, 64], n))
    cfg.define_knob("vec", _dividing([n, 8, 16, 32, 64], n))
    io, ii = s[C].split(i, factor=cfg["strip"].val)
    s[C].parallel(io)
    jo, ji = s[C].split(j, factor=cfg["vec"].val)
    s[C].vectorize(ji)
    return s, [A, B, C]


@autotvm.template("w2/matmul")
def matmul(n):
    """W2: packed-B matmul; panel width, tile rows, register-block rows, unrolling and the
    k block."""
    cfg = autotvm.get_config()
    bn0, rows0 = _example("matmul").widths()   # the target's (a task instantiates under it)
    cfg.define_knob("bn", _first(bn0, [32, 16, 64]))      # a bn not dividing n pads B
    cfg.define_knob("tile_i", _dividing([32, 16, 64], n))
    cfg.define_knob("rows", _first(rows0, [8, 4, 2]))
    cfg.define_knob("unroll", [1, 0])
    cfg.define_knob("kb", _first(_example("matmul").k_block(), [0, 256, 128]))
    bn, ti, rows = cfg["bn"].val, cfg["tile_i"].val, cfg["rows"].val
    if ti % rows:
        cfg.raise_error("register block rows do not divide the tile")
    return _example("matmul").schedule(n, bn=bn, rows=rows, tile_i=ti,
                                       unroll=bool(cfg["unroll"].val), kb=cfg["kb"].val)


@autotvm.template("w3/blur")
def blur(n):
    """W3: two-stage 3x3 blur, ``Bx`` computed at ``By``'s tile; the tile's shape."""
    cfg = autotvm.get_config()
    cfg.define_knob("ty", [32, 8, 16, 64])
    cfg.define_knob("tx", [256, 64, 128, 512])
    return _example("blur").schedule(n, cfg["ty"].val, cfg["tx"].val)


@autotvm.template("w4/conv2d")
def conv2d(c, k, h, w):
    """W4: conv2d NCHW 3x3 pad 1 with output channels blocked by ``fb`` and ``xb`` pixels per
    register tile, the input channel outermost or innermost of the reduction, the tile copied
    back as scalars or as vectors."""
    cfg = autotvm.get_config()
    ex = _example("conv2d")
    fb0, xb0 = ex.widths()                     # the target's (a task instantiates under it)
    cfg.define_knob("fb", _first(fb0, [16, 8, 32]))
    cfg.define_knob("xb", _dividing(_first(xb0, [14, 7, 8, 28, 4, 6, 12]), w))
    cfg.define_knob("rc_inner", _first(int(ex.channels_inner()), [0, 1]))
    return ex.schedule(c, k, h, w, fb=cfg["fb"].val, xb=cfg["xb"].val,
                       rc_inner=bool(cfg["rc_inner"].val))


@autotvm.template("w5/rowsum")
def rowsum(rows, cols):
    """W5: row sums of a tall, narrow matrix; parallel block size, and whether each row's
    halves are added as vectors first (``examples/rowsum.py``)."""
    cfg = autotvm.get_config()
    cfg.define_knob("block", [b for b in (2048, 256, 512, 1024, 4096, 8192) if b <= rows]
                    or [rows])
    cfg.define_knob("halves", [1, 0])
    return _example("rowsum").schedule(rows, cols, block=cfg["block"].val,
                                       halves=bool(cfg["halves"].val))


@autotvm.template("w6/maxpool")
def maxpool(h, w, ch=16):
    """W6: two chained 3x3 max-pools (int8 NHWC); pool 1 at the root or at pool 2's row
    tile, tile rows, parallel tiles, vector width of the fused (x, channel) axis."""
    mp = _example("maxpool_rolling")
    A = te.placeholder((1, h, w, ch), "int8", name="A")
    B = mp.maxpool_nhwc(A, "B")
    C = mp.maxpool_nhwc(B, "C")
    s = te.create_schedule(C.op)
    cfg = autotvm.get_config()
    cfg.define_knob("at", ["tile", "root"])
    cfg.define_knob("tile", [8, 4, 16, 32])
    cfg.define_knob("parallel", [1, 0])
    # one vector register of int8 lanes, at most 32 (64-lane zmm code measured 4-10 % slower)
    lanes0 = min(32, as_target(None).vector_lanes("int8"))
    cfg.define_knob("lanes", _first(lanes0, [32, 16, 64]))
    lanes = cfg["lanes"].val

    n, y, x, c = C.op.axis
    yo, _ = s[C].split(y, factor=cfg["tile"].val)
    if cfg["parallel"].val:
        s[C].parallel(yo)
    mp.vectorize_fused(s[C], x, c, C.op.reduce_axis, (w - 4) * ch, lanes)
    if cfg["at"].val == "tile":
        s[B].compute_at(s[C], yo)
    bn, by, bx, bc = B.op.axis
    mp.vectorize_fused(s[B], bx, bc, B.op.reduce_axis, (w - 2) * ch, lanes)
    return s, [A, C]


def schedule():
    """The W2 template at its default config at the small size (``tepad run``/``lower``)."""
    task = autotvm.task.create("w2/matmul", args=TUNE_ARGS["w2/matmul"], target="llvm")
    return task.instantiate(task.config_space.get(0))
