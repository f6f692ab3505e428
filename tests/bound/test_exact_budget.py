"""Exact mode gives up on a stage whose region is too costly for ISL: the stage
gets interval bounds (recorded in ``exact_fallbacks``) and the kernel stays correct."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.arith.isl_bridge import isl, operation_budget
from tepad.bound import infer_bound
from tepad.bound import exact
from tepad.testing import reference


def _clamped_chain(n, di, dj, tiles, rows=14, cols=9):
    """``n`` stages each reading its producer at (i, j) and (i + di, j + dj) clamped to the
    tensor, tiled by ``tiles`` and computed at the consumer's inner tile loop."""
    A = te.placeholder((rows, cols), "float32", name="A")
    t, stages = A, []
    for k in range(n):
        src = t

        def body(i, j, src=src):
            ii = tir.max(tir.min(i + di, rows - 1), 0)
            jj = tir.max(tir.min(j + dj, cols - 1), 0)
            return src[i, j] * 0.5 + src[ii, jj]
        t = te.compute((rows, cols), body, name=f"S{k + 1}")
        stages.append(t)
    s = te.create_schedule(t.op)
    inner = {st: s[st].tile(st.op.axis[0], st.op.axis[1], *tiles)[1] for st in stages}
    for k in range(n - 1, 0, -1):
        s[stages[k - 1]].compute_at(s[stages[k]], inner[stages[k]])
    return s, A, t


@pytest.mark.parametrize("n, di, dj", [(3, -1, -1), (4, 2, 1)])
def test_a_region_too_costly_for_isl_falls_back_to_intervals(n, di, dj):
    # (3, -1, -1): one stage's parametric bounds took ISL 30 s; (4, 2, 1): a region of 14
    # pieces over 10 parameters (15 s, for a predicate too large to keep)
    s, A, out = _clamped_chain(n, di, dj, (3, 2))
    bm = infer_bound(s.copy().normalize(), exact=True)
    assert bm.exact_fallbacks, "the costly stage is bounded by intervals"
    assert all("interval InferBound" in f.reason for f in bm.exact_fallbacks)
    a = np.random.default_rng(n).standard_normal((14, 9)).astype("float32")
    mod = tepad.build(tepad.lower(s, [A, out], exact_bounds=True), bounds_check=True)
    res = np.zeros((14, 9), "float32")
    mod(a, res)
    np.testing.assert_allclose(res, reference(out, {A: a}), rtol=1e-4, atol=1e-4)


def test_cheap_regions_stay_exact():
    s, A, out = _clamped_chain(3, 1, 0, (4, 9))
    bm = infer_bound(s.copy().normalize(), exact=True)
    assert not bm.exact_fallbacks


def test_operation_budget_stops_isl_and_is_lifted_afterwards():
    text = ("[n, m, k] -> { [i, j] : 0 <= i < n and 0 <= j < m and i + j <= k and "
            "(i % 3 = 1 or j % 5 = 2) and (i + 2*j) % 7 = 3 }")
    with pytest.raises(isl.Error):
        with operation_budget(100):
            isl.Set(text).dim_min(0)
    assert isl.Set(text).dim_min(0).n_piece() >= 1       # unlimited again
    assert exact.STAGE_ISL_OPERATIONS > 0
