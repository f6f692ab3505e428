"""conv2d NCHW, stride 1, padding 1 (fp32): 1x64x56x56 input, 64 filters 3x3 by default.

Schedule (output channels vectorized, the NCHW[16c] blocking of TVM's x86 conv2d). The
channel block ``fb`` and the pixel block ``xb`` follow the target (``with Target(...)``, else
the host): with 32 vector registers (AVX-512) one vector of channels (16) x 14 pixels, 14
accumulators; with 16 (AVX2) two vectors of channels (16 = 2 x 8) x 4 pixels, 8 accumulators
(two FMA pipes x four cycles of latency) fed by 2 weight loads and 4 broadcasts per tap (one
vector x 7 pixels, 7 accumulators, is ~10 % slower: AVX2 code on the Zen 5 host, one
thread), and the input channel innermost of the reduction (ry, rx, rc): with the 3-tap rx
loop innermost LLVM unrolls it and keeps the broadcasts the taps share live, more than 16
registers hold (~5 %). The figures below are AVX-512's:

* the zero-padding stage ``Xp`` is computed once at the root, in parallel over channels (a
  58x58 plane per channel; no bounds test in the hot loop);
* the weights are packed by a compute stage ``Wp[k // 16, c, 3, 3, 16]`` so that 16 output
  channels of one tap are one contiguous zmm load (channels past ``k`` are packed as zeros);
* the convolution itself is the stage ``O16[n, k // 16, y, x, 16]`` (channels innermost),
  computed at the output tile (16 channels x 14 pixels of one row): the reduction
  (rc, ry, rx) outside, 14 pixels unrolled and 16 channels vectorized inside -- 14 zmm
  accumulators, one weight load and 14 input broadcasts per tap, every lane useful (56 = 4 x
  14; a row-vectorized NCHW tile wastes a half vector per 56-pixel row);
* the output stage ``Y`` copies the tile back transposed to NCHW, 14 pixels of a channel as
  one vector gathered from the tile at a stride of 16 (each lane's address a constant offset
  from the first); K/16 * H tiles run in parallel. Unrolled 16 x 14 scalar copies
  (``scalar_copy=True``) measured the same within 1 % and build 2.5x slower at the
  benchmark's size (0.26 s against 0.10 s).

On the Zen 5 host, one thread (``bench_plain.py --only W4 --threads 1 --clock cpu``), W4
runs level with TVM's best variant (the same register tile; TVM unrolls all 9 taps, which
measured no faster here; benchmarks/RESULTS.md): 7.2 M zmm FMAs at ~7.9 G/s, against
~8.2 G/s for a bare 14-accumulator FMA loop on that host.
"""
from tepad import te, tir
from tepad.target import as_target

SHAPE = dict(c=8, k=8, h=10, w=12)   # small default size; the benchmark uses 64, 64, 56, 56


def widths(target=None):
    """``(fb, xb)``: output channels and output pixels per register tile (fb / lanes x xb
    accumulators, the weight vectors and one broadcast fit the vector registers)."""
    tgt = as_target(target)
    lanes = tgt.vector_lanes("float32")
    return (lanes, 14) if tgt.vector_registers >= 32 else (2 * lanes, 4)


def channels_inner(target=None) -> bool:
    """Whether the input channel is the innermost reduction loop (ry, rx, rc) rather than the
    outermost (rc, ry, rx): with fewer than 32 vector registers."""
    return as_target(target).vector_registers < 32


def schedule(c=SHAPE["c"], k=SHAPE["k"], h=SHAPE["h"], w=SHAPE["w"], fb=None, xb=None,
             target=None, rc_inner=None, scalar_copy=False):
    """The schedule above; ``fb``, ``xb`` and ``rc_inner`` (the reduction order) default to
    the target's choice and are the knobs of ``examples/tune_templates.py``'s W4 template;
    ``scalar_copy``: ``Y`` copies the tile back as unrolled scalars."""
    dfb, dxb = widths(target)
    fb, xb = fb or dfb, xb or dxb
    rc_inner = channels_inner(target) if rc_inner is None else rc_inner
    X = te.placeholder((1, c, h, w), "float32", name="X")
    Wt = te.placeholder((k, c, 3, 3), "float32", name="W")
    Xp = te.compute((1, c, h + 2, w + 2),
                    lambda n, ci, y, x: tir.if_then_else(
                        tir.all(y >= 1, y <= h, x >= 1, x <= w), X[n, ci, y - 1, x - 1],
                        tir.const(0.0, "float32")), name="Xp")
    kb = (k + fb - 1) // fb
    Wp = te.compute((kb, c, 3, 3, fb),
                    lambda fo, ci, ky, kx, fi: tir.if_then_else(
                        fo * fb + fi < k, Wt[fo * fb + fi, ci, ky, kx],
                        tir.const(0.0, "float32")), name="Wp")
    rc = te.reduce_axis((0, c), name="rc")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    O16 = te.compute((1, kb, h, w, fb),
                     lambda n, fo, y, x, fi: te.sum(
                         Xp[n, rc, y + ry, x + rx] * Wp[fo, rc, ry, rx, fi], axis=[rc, ry, rx]),
                     name="O16")
    Y = te.compute((1, k, h, w), lambda n, f, y, x: O16[n, f // fb, y, x, f % fb], name="Y")

    s = te.create_schedule(Y.op)
    n, f, y, x = Y.op.axis
    fo, fi = s[Y].split(f, factor=fb)
    xo, xi = s[Y].split(x, factor=xb)
    s[Y].reorder(n, fo, y, xo, fi, xi)
    s[Y].parallel(s[Y].fuse(fo, y))
    if scalar_copy:
        s[Y].unroll(fi)
        s[Y].unroll(xi)
    else:
        s[Y].vectorize(xi)
    s[O16].compute_at(s[Y], xo)
    _, _, _, xc, fc = s[O16].op.axis
    rc_, ry_, rx_ = s[O16].op.reduce_axis
    s[O16].reorder(*((ry_, rx_, rc_) if rc_inner else (rc_, ry_, rx_)), xc, fc)
    s[O16].unroll(xc)
    s[O16].vectorize(fc)
    s[Xp].parallel(s[Xp].op.axis[1])
    s[Xp].vectorize(s[Xp].op.axis[3])
    s[Wp].parallel(s[Wp].op.axis[0])
    s[Wp].vectorize(s[Wp].op.axis[4])
    return s, [X, Wt, Y]


def inputs(c=SHAPE["c"], k=SHAPE["k"], h=SHAPE["h"], w=SHAPE["w"], **_):
    import numpy as np
    rng = np.random.default_rng(0)
    return [rng.random((1, c, h, w), dtype="float32") - 0.5,
            rng.random((k, c, 3, 3), dtype="float32") - 0.5]
