"""Matmul C = A @ B (fp32), scheduled the way TVM/Halide experts do on an x86 CPU.

The widths come from the target (``with Target(...)``, else the host): ``V`` = fp32 lanes of
one vector register (16 with AVX-512, 8 with AVX2). On AVX-512 (V = 16, 32 registers):

* B is re-laid out by a compute stage ``packedB[j // 32, k, j % 32]`` so the inner loop streams
  32 = 2V contiguous floats of B per k (two zmm registers), the classic "packed B" trick;
* C is tiled 32x32; each tile accumulates in a cache_write stage (a 32x32 block that stays in
  L1) whose k loop is outermost, with an 8-row x 32-column register block (8 x 2 zmm
  accumulators): rows unrolled, columns vectorized. With 16 registers (AVX2) the register
  block is 4 rows x 2V = 16 columns (8 ymm accumulators) and the tiles 32 x 16; the k loop is
  then also split by 256 outside the register blocks, so that the 16 KB of the B panel one
  k block reads stays in L1 for the tile's 8 row groups (the whole panel, n x 64 B, does not:
  ~7 % of a 1024^3 call, AVX2 code on the Zen 5 host, one thread);
* the row tiles run in parallel; the packing stage runs in parallel too, over rows of B
  (k outer), so B is read sequentially.
"""
from tepad import te
from tepad.target import as_target

N = 128          # small default size (tests); the benchmark uses 1024


def widths(target=None):
    """``(bn, rows)``: the packed panel width (two vectors of fp32) and the register-block
    rows (accumulators 2 x rows fit the target's vector registers with room for B and A)."""
    tgt = as_target(target)
    return 2 * tgt.vector_lanes("float32"), (8 if tgt.vector_registers >= 32 else 4)


def k_block(target=None):
    """The k block of the target (0: k is not split): 256 with 16 vector registers."""
    return 0 if as_target(target).vector_registers >= 32 else 256


def schedule(n=N, bn=None, rows=None, target=None, tile_i=None, unroll=True, kb=None):
    """The schedule above; ``bn`` (panel width), ``rows`` (register-block rows), ``tile_i``
    (rows of a C tile, default ``max(bn, 32)``), ``unroll`` (the register block's rows) and
    ``kb`` (the k block, 0 for none; default ``k_block(target)``, whole k when it does not
    divide ``n``) are the knobs of ``examples/tune_templates.py``'s W2 template."""
    dbn, drows = widths(target)
    bn, rows = bn or dbn, rows or drows
    kb = k_block(target) if kb is None else kb
    A = te.placeholder((n, n), "float32", name="A")
    B = te.placeholder((n, n), "float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    packedB = te.compute((n // bn, n, bn), lambda jo, kk, ji: B[kk, jo * bn + ji], name="packedB")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * packedB[j // bn, k, j % bn], axis=k),
                   name="C")
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "global")
    io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], tile_i or max(bn, 32), bn)
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
