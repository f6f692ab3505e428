"""Constant-stride gathers and scatters: each lane is addressed as the first lane's address
plus a constant offset (no vector of indices taken apart lane by lane), masked lanes stay
unread, and the results match numpy."""
import re

import numpy as np
import pytest

import tepad
from tepad import te, tir

# an index vector taken apart lane by lane: what a constant-stride access must not leave
LANE_OF_INDEX = re.compile(r"extractelement <\d+ x i(32|64)>")


def _transpose(n, m, vector_axis):
    A = te.placeholder((n, m), name="A")
    B = te.compute((m, n), lambda i, j: A[j, i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    if vector_axis == "j":      # gather: lanes read A at a stride of m
        s[B].vectorize(B.op.axis[1])
    else:                       # scatter: B's lanes written at a stride of n
        s[B].reorder(B.op.axis[1], B.op.axis[0])
        s[B].vectorize(B.op.axis[0])
    return s, [A, B]


@pytest.mark.parametrize("vector_axis", ["j", "i"])
@pytest.mark.parametrize("n,m", [(14, 16), (16, 3), (7, 9)])
def test_strided_access_matches_numpy_and_uses_constant_offsets(vector_axis, n, m):
    s, args = _transpose(n, m, vector_axis)
    mod = tepad.build(s, args)
    a = np.random.default_rng(0).random((n, m), dtype="float32")
    b = np.zeros((m, n), "float32")
    mod(a, b)
    np.testing.assert_array_equal(b, a.T * 2.0)
    assert not LANE_OF_INDEX.search(mod.get_source("ll"))


def test_o16_tile_copy_of_conv2d_has_no_lane_extracted_indices():
    """The W4 copy-back (14 pixels of a channel read at a stride of 16 from the tile)."""
    from examples import conv2d
    s, args = conv2d.schedule(c=16, k=16, h=6, w=14, fb=16, xb=14)
    ll = tepad.build(s, args).get_source("ll")
    assert not LANE_OF_INDEX.search(ll)


def test_masked_strided_gather_skips_out_of_bounds_lanes():
    """In row 0, lane 0's address lies before the buffer (masked off by the condition); the
    other lanes' loads, addressed from it, still read their elements."""
    rows, n, stride = 5, 16, 3
    A = te.placeholder((rows * n * stride,), name="A")
    B = te.compute((rows, n), lambda r, i: tir.if_then_else(
        i >= 1, A[r * n * stride + (i - 1) * stride], tir.const(-1.0, "float32")), name="B")
    s = te.create_schedule(B.op)
    s[B].vectorize(B.op.axis[1])
    mod = tepad.build(s, [A, B])
    a = np.arange(rows * n * stride, dtype="float32")
    b = np.zeros((rows, n), "float32")
    mod(a, b)
    want = np.full((rows, n), -1.0, "float32")
    for r in range(rows):
        want[r, 1:] = a[r * n * stride:r * n * stride + (n - 1) * stride:stride]
    np.testing.assert_array_equal(b, want)
