"""Vector math the CPU code generator writes inline instead of calling the C library.

LLVM turns ``llvm.exp`` on a vector into one scalar ``expf`` call per lane unless a vector
math library is configured, which made every vectorized ``exp`` (softmax, sigmoid, ...) run
at scalar speed. :func:`expf_vector` computes ``exp`` of a float32 vector in registers:

    n = rint(x * log2(e)),   r = x - n * ln2 (ln2 split in two parts, so r is exact),
    e^r = 1 + r + r^2 * P(r)  (a degree-5 minimax polynomial on [-ln2/2, ln2/2]),
    e^x = e^r * 2^(n // 2) * 2^(n - n // 2)  (two factors keep each power of two normal, so
          results in the subnormal range round as a product should).

The result is within 2 ulp of the exact value on normal results (checked against float64
in tests/codegen/test_vector_exp.py); ``+inf`` above ``EXP_MAX``, ``0`` below ``EXP_MIN``,
NaN for NaN, as C's ``expf``.
"""
from __future__ import annotations

import llvmlite.ir as ir

from .lltypes import I32

LOG2E = 1.44269504088896341
LN2_HI = 0.693359375               # exactly representable; n * LN2_HI is exact for |n| < 2^9
LN2_LO = -2.12194440e-4
#: the coefficients of P(r), highest degree first (Cephes' expf)
POLY = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
        1.6666665459e-1, 5.0000001201e-1)
EXP_MAX = 88.72283935546875        # above: the result overflows float32
EXP_MIN = -103.97208404541016      # below: the result rounds to 0


def _splat(t, value):
    return ir.Constant(t, [ir.Constant(t.element, value)] * t.count)


def expf_vector(b: ir.IRBuilder, x, rint):
    """``exp(x)`` of the ``<N x float>`` value ``x``, emitted with builder ``b``; ``rint(v)``
    emits round-to-nearest-even of a float vector (the caller's ``llvm.rint`` call)."""
    t = x.type
    it = ir.VectorType(I32, t.count)
    flags = ("contract",)
    too_big = b.fcmp_ordered(">", x, _splat(t, EXP_MAX))
    too_small = b.fcmp_ordered("<", x, _splat(t, EXP_MIN))
    is_nan = b.fcmp_unordered("uno", x, x)
    xc = b.select(too_big, _splat(t, EXP_MAX), x)
    xc = b.select(too_small, _splat(t, EXP_MIN), xc)
    n = rint(b.fmul(xc, _splat(t, LOG2E), flags=flags))
    r = b.fsub(xc, b.fmul(n, _splat(t, LN2_HI)))
    r = b.fsub(r, b.fmul(n, _splat(t, LN2_LO)))
    y = _splat(t, POLY[0])
    for c in POLY[1:]:
        y = b.fadd(b.fmul(y, r, flags=flags), _splat(t, c), flags=flags)
    r2 = b.fmul(r, r)
    y = b.fadd(b.fadd(b.fmul(y, r2, flags=flags), r, flags=flags), _splat(t, 1.0))
    ni = b.fptosi(n, it)
    n1 = b.ashr(ni, ir.Constant(it, [ir.Constant(I32, 1)] * t.count))
    n2 = b.sub(ni, n1)
    bias = ir.Constant(it, [ir.Constant(I32, 127)] * t.count)
    shift = ir.Constant(it, [ir.Constant(I32, 23)] * t.count)
    s1 = b.bitcast(b.shl(b.add(n1, bias), shift), t)
    s2 = b.bitcast(b.shl(b.add(n2, bias), shift), t)
    out = b.fmul(b.fmul(y, s1), s2)
    out = b.select(too_big, _splat(t, float("inf")), out)
    out = b.select(too_small, _splat(t, 0.0), out)
    return b.select(is_nan, x, out)
