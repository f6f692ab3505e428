"""Winograd minimal-filtering matrices (TVM's ``topi.nn.winograd_util``) by the Cook-Toom
construction.

For an output tile of ``m`` and a kernel of ``r`` taps, ``alpha = m + r - 1`` points are
chosen: ``alpha - 1`` finite interpolation points ``p_i`` (0, 1, -1, 2, -2, 1/2, -1/2, 3,
...) and the point at infinity. With ``M_i(x) = prod_{j != i} (x - p_j)`` and ``M(x) =
prod_j (x - p_j)`` over the finite points:

* ``G`` (alpha x r): row i ``[p_i^k / M_i(p_i)]_k``; the last row ``[0, .., 0, 1]``;
* ``B`` (alpha x alpha): column i the coefficients of ``M_i``; the last column those of
  ``M``;
* ``A`` (alpha x m): row i ``[p_i^k]_k``; the last row ``[0, .., 0, 1]``,

so that the correlation ``y_k = sum_j d_{k+j} g_j`` (k < m) of an ``alpha``-long ``d`` is
``A^T [(G g) * (B^T d)]`` (the 2-D transform applies each matrix along both axes). The
matrices are exact rationals, rounded once to ``out_dtype``."""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np

from ...errors import TepadError
from ...tensor import compute
from ...tir import op as tirop
from ...tir.expr import const


def _points(n):
    pts, k = [Fraction(0)], 1
    while len(pts) < n:
        for p in (Fraction(k), Fraction(-k), Fraction(1, k + 1), Fraction(-1, k + 1)):
            if p not in pts:
                pts.append(p)
        k += 1
    return pts[:n]


def _poly_mul(a, b):
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _roots_poly(roots):
    """Coefficients (constant first) of prod (x - root)."""
    poly = [Fraction(1)]
    for r in roots:
        poly = _poly_mul(poly, [-r, Fraction(1)])
    return poly


@lru_cache(maxsize=None)
def winograd_matrices_np(tile_size: int, kernel_size: int):
    """``(A, B, G)`` as float64 numpy arrays (module doc)."""
    m, r = tile_size, kernel_size
    if not (isinstance(m, int) and isinstance(r, int) and m >= 1 and r >= 1):
        raise TepadError(f"winograd_transform_matrices: tile_size and kernel_size must be "
                         f"positive ints, got {tile_size!r}, {kernel_size!r}")
    alpha = m + r - 1
    pts = _points(alpha - 1)
    A = np.zeros((alpha, m))
    B = np.zeros((alpha, alpha))
    G = np.zeros((alpha, r))
    for i, p in enumerate(pts):
        others = [q for q in pts if q != p]
        f = Fraction(1)
        for q in others:
            f *= p - q
        for k in range(m):
            A[i, k] = float(p ** k)
        for k in range(r):
            G[i, k] = float(p ** k / f)
        for k, c in enumerate(_roots_poly(others)):
            B[k, i] = float(c)
    A[alpha - 1, m - 1] = 1.0
    G[alpha - 1, r - 1] = 1.0
    for k, c in enumerate(_roots_poly(pts)):
        B[k, alpha - 1] = float(c)
    return A, B, G


def const_matrix_tensor(matrix, name, dtype):
    """A 2-d constant as a compute stage whose body selects among the entries (TVM's
    ``const_matrix``; stage attribute ``const_matrix``)."""
    rows, cols = matrix.shape

    def body(i, j):
        out = const(0, dtype)
        for a in range(rows):
            for b in range(cols):
                if matrix[a, b] != 0:
                    out = tirop.if_then_else(tirop.all(i == a, j == b),
                                             const(float(matrix[a, b]), dtype), out)
        return out
    return compute((rows, cols), body, name=name, attrs={"const_matrix": True})


def winograd_transform_matrices(tile_size: int, kernel_size: int, out_dtype):
    """``(A, B, G)`` as constant stages of ``out_dtype``: A (alpha x m), B (alpha x alpha),
    G (alpha x r) (module doc)."""
    A, B, G = winograd_matrices_np(tile_size, kernel_size)
    return (const_matrix_tensor(A, "A", out_dtype), const_matrix_tensor(B, "B", out_dtype),
            const_matrix_tensor(G, "G", out_dtype))


__all__ = ["winograd_transform_matrices", "winograd_matrices_np", "const_matrix_tensor"]
