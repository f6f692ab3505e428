"""Exact (ISL) InferBound on deep compute_at chains (issue #4): stays exact, stays linear,
and a producer's region only carries what its consumers' regions depend on."""
import os
import sys

import numpy as np
import pytest

import tepad
from tepad.arith.isl_bridge import dim_type
from tepad.bound import explain, infer_bound
from tepad.bound import exact as exact_mod
from tepad.testing import reference
from tepad.tir.expr import IntImm

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
from bench_exact import chain  # noqa: E402


def _inputs(A):
    return [np.random.default_rng(0).standard_normal([int(d) for d in A.shape]).astype("float32")]


@pytest.mark.parametrize("n", [5, 12])
def test_chain_lowers_builds_and_matches_numpy_in_exact_mode(n):
    s, (A, out) = chain(n, size=64, tile=8)
    inputs = _inputs(A)
    ref = reference(out, {A: inputs[0]})
    # the same stencil, directly in numpy
    x = inputs[0].astype("float64")
    for _ in range(n):
        x = x[:-1] + x[1:]
    np.testing.assert_allclose(ref, x[:64], rtol=1e-4, atol=1e-3)
    for exact in (False, True):
        mod = tepad.build(tepad.lower(s, [A, out], exact_bounds=exact), bounds_check=True)
        res = np.zeros([int(d) for d in out.shape], "float32")
        mod(*inputs, res)
        np.testing.assert_allclose(res, ref, rtol=1e-4, atol=1e-3, err_msg=f"exact={exact}")


def test_chain_regions_are_constant_tiles_without_fallbacks():
    n = 12
    s, _ = chain(n, size=64, tile=8)
    s2 = s.copy().normalize()
    bi = infer_bound(s2)
    be = infer_bound(s2, exact=True)
    assert be.exact_fallbacks == []
    for st in s2.stages:
        if not st.op.name.startswith("S") or st.is_output:
            continue
        (iv,) = st.op.axis
        # realize extents are constants (a 9-wide tile), the offset is exact mode's own
        assert isinstance(be[iv].extent, IntImm) and be[iv].extent.value == 9, st.op.name
        assert isinstance(bi[iv].extent, IntImm) and bi[iv].extent.value == 9
    # every region handed to ISL only mentions the consumer's own attach loop and a few
    # abbreviations of outer expressions -- not every loop of the chain
    for op, region in be.exact_regions.items():
        assert region.dim(dim_type.param) <= 3, (op.name, region)


def test_chain_exact_computes_only_what_is_needed():
    s, _ = chain(8, size=32, tile=8)
    rep = explain(s)
    for st in rep.stages:
        if st.is_output or st.computed_exact is None:
            continue
        assert st.computed_exact <= st.computed_interval
    inter = [st for st in rep.stages if not st.is_output]
    # tails of the split chain: exact computes each needed element exactly once per tile
    assert sum(st.computed_exact for st in inter) < sum(st.computed_interval for st in inter)


def test_abstraction_is_exact_when_forced(monkeypatch):
    """Abbreviating from depth 0 on gives the same regions as the full encoding."""
    s, (A, out) = chain(6, size=24, tile=4)
    s2 = s.copy().normalize()
    full = infer_bound(s2, exact=True)
    monkeypatch.setattr(exact_mod, "ABSTRACT_DEPTH", 0)
    s3 = s.copy().normalize()
    abst = infer_bound(s3, exact=True)
    assert abst.exact_fallbacks == []
    inputs = _inputs(A)
    ref = reference(out, {A: inputs[0]})
    mod = tepad.build(tepad.lower(s, [A, out], exact_bounds=True), bounds_check=True)
    res = np.zeros([int(d) for d in out.shape], "float32")
    mod(*inputs, res)
    np.testing.assert_allclose(res, ref, rtol=1e-4, atol=1e-3)
    for a, b in zip(s2.stages, s3.stages):
        if not a.op.name.startswith("S"):
            continue
        for iva, ivb in zip(a.op.axis, b.op.axis):
            assert str(full[iva].extent) == str(abst[ivb].extent)
