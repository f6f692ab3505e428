"""Matmul C = A @ B (fp32), scheduled the way TVM/Halide experts do on an x86 CPU: the demo's
kernel, and examples/matmul.py's.

The widths come from the target (``with Target(...)``, else the host, which
``$TEPAD_HOST_TARGET`` may set): ``V`` = fp32 lanes of one vector register (16 with AVX-512,
8 with AVX2, 4 with SSE). On AVX-512 (V = 16, 32 registers):

* B is re-laid out by a compute stage ``packedB[j // 32, k, j % 32]`` so the inner loop streams
  32 = 2V contiguous floats of B per k (two zmm registers), the classic "packed B" trick;
* C is tiled 32x32; each tile accumulates in a cache_write stage (a 32x32 block that stays in
  L1) whose k loop is outermost, with an 8-row x 32-column register block (8 x 2 zmm
  accumulators): rows unrolled, columns vectorized;
* the row tiles run in parallel; the packing stage runs in parallel too, over rows of B
  (k outer), so B is read sequentially.

With 16 vector registers (AVX2, SSE) the register block is 4 rows x 3V columns: 12
accumulators, 3 B vectors and one broadcast of A fill the 16 registers (4 x 2V, 8
accumulators, left the FMA units waiting on their latency: 1024^3 in 25.3 ms against 22.5 ms,
AVX2 code on the Zen 4 host, one thread). 3V does not divide a power-of-two ``n``, so the
panels are padded with zero columns up to a multiple of 3V and the tile accumulates in a
padded stage ``Cp`` (n x that multiple) instead of a cache_write stage; only the copy-back to C
tests ``j < n``. The k loop is not split (``k_block``): with 4 x 2V blocks a k block of 256
(16 KB of the B panel kept in L1) had saved ~7 %, but with 3V panels the 24 KB such a block
reads no longer stays in L1 beside A (whole k: 21.2-21.5 ms, k blocks of 256: 22.0-22.3 ms,
512: 21.6-21.9 ms, the same runs).
"""
from tepad import te, tir
from tepad.target import as_target

N = 128          # small default size (tests); the benchmark uses 1024


def widths(target=None):
    """``(bn, rows)``: the packed panel width (two vectors of fp32 with 32 vector registers,
    three with 16) and the register-block rows (the ``bn / V x rows`` accumulators, the B
    vectors and one broadcast fit the target's vector registers)."""
    tgt = as_target(target)
    lanes = tgt.vector_lanes("float32")
    return (2 * lanes, 8) if tgt.vector_registers >= 32 else (3 * lanes, 4)


def k_block(target=None):
    """The k block of the target (0: k is not split; see above): 0 on every target so far,
    the template's ``kb`` knob tries 256 and 128."""
    return 0


def schedule(n=N, bn=None, rows=None, target=None, tile_i=None, unroll=True, kb=None):
    """The schedule above; ``bn`` (panel width), ``rows`` (register-block rows), ``tile_i``
    (rows of a C tile, default ``max(bn, 32)`` rounded to a multiple of ``rows``), ``unroll``
    (the register block's rows) and ``kb`` (the k block, 0 for none; default
    ``k_block(target)``, whole k when it does not divide ``n``) are the knobs of
    examples/tune_templates.py's W2 template. A ``bn`` that does not divide ``n`` pads
    the panels (see above)."""
    dbn, drows = widths(target)
    bn, rows = bn or dbn, rows or drows
    kb = k_block(target) if kb is None else kb
    tile_i = tile_i or -(-max(bn, 32) // rows) * rows
    padded = n % bn != 0
    nb = -(-n // bn)                 # panels, the last one padded with zero columns
    A = te.placeholder((n, n), "float32", name="A")
    B = te.placeholder((n, n), "float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    if padded:
        packedB = te.compute(
            (nb, n, bn), lambda jo, kk, ji: te.if_then_else(
                jo * bn + ji < n, B[kk, tir.min(jo * bn + ji, n - 1)], 0.0), name="packedB")
        Cp = te.compute((n, nb * bn), lambda i, j: te.sum(A[i, k] * packedB[j // bn, k, j % bn],
                                                         axis=k), name="Cp")
        C = te.compute((n, n), lambda i, j: Cp[i, j], name="C")
        s = te.create_schedule(C.op)
        CC = Cp
    else:
        packedB = te.compute((nb, n, bn), lambda jo, kk, ji: B[kk, jo * bn + ji],
                             name="packedB")
        C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * packedB[j // bn, k, j % bn],
                                                   axis=k), name="C")
        s = te.create_schedule(C.op)
        CC = s.cache_write(C, "global")
    io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], tile_i, bn)
    s[C].vectorize(ji)
    s[C].parallel(io)
    s[CC].compute_at(s[C], jo)
    ic, jc = s[CC].op.axis
    (kc,) = s[CC].op.reduce_axis
    ico, ici = s[CC].split(ic, factor=rows)
    if kb and kb < n and n % kb == 0:
        kco, kci = s[CC].split(kc, factor=kb)
        s[CC].reorder(kco, ico, kci, ici, jc)
    else:
        s[CC].reorder(ico, kc, ici, jc)
    if unroll:
        s[CC].unroll(ici)
    s[CC].vectorize(jc)
    po, pk, pi = s[packedB].op.axis
    # pack row by row of B (k outer): B is read sequentially (hardware prefetch works) instead
    # of as 32-float strips 4 KB apart; ~0.3 ms less per 1024^3 call on 2 threads.
    s[packedB].reorder(pk, po, pi)
    s[packedB].vectorize(pi)
    s[packedB].parallel(pk)
    return s, [A, B, C]


def inputs(n=N):
    import numpy as np
    rng = np.random.default_rng(0)
    return [rng.random((n, n), dtype="float32"), rng.random((n, n), dtype="float32")]
