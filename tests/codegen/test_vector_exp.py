"""``exp`` of a float32 vector is computed inline (tepad.codegen.vector_math), not as one C
call per lane: its accuracy against float64, its special values, and the IR fact that no
``expf`` call is left in a vectorized kernel."""
import numpy as np
import pytest

import tepad
from tepad import te


def _exp_kernel(n, lanes, target="llvm", body=te.exp):
    X = te.placeholder((n,), name="X")
    E = te.compute((n,), lambda i: body(X[i]), name="E")
    s = te.create_schedule(E.op)
    _, inner = s[E].split(E.op.axis[0], lanes)
    s[E].vectorize(inner)
    return tepad.build(s, [X, E], target), s, [X, E]


def _ulps(got, want):
    """Distance in float32 units in the last place (want rounded to float32)."""
    want32 = want.astype(np.float32)
    spacing = np.spacing(np.abs(want32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / spacing


@pytest.mark.parametrize("target", ["llvm", "llvm -mcpu=haswell", "llvm -mcpu=x86-64"])
def test_vector_exp_is_within_two_ulp_on_normal_results(target):
    lanes = tepad.target.Target(target).vector_lanes("float32")
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-87.0, 88.5, 20000), rng.uniform(-1, 1, 4000),
                        np.linspace(-10, 10, 4000)]).astype(np.float32)
    n = len(x) - len(x) % lanes
    x = x[:n]
    f, _, _ = _exp_kernel(n, lanes, target)
    out = tepad.nd.empty((n,), "float32")
    f(tepad.nd.array(x), out)
    got = out.numpy()
    want = np.exp(x.astype(np.float64))
    assert _ulps(got, want).max() <= 2.0


def test_vector_exp_special_values_match_c():
    x = np.array([0.0, -0.0, 1.0, 88.7, 88.73, 100.0, np.inf, -np.inf, np.nan, -87.5, -95.0,
                  -103.9, -104.0, -200.0, 1e-8, -1e-8], dtype=np.float32)
    f, _, _ = _exp_kernel(16, 16)
    out = tepad.nd.empty((16,), "float32")
    f(tepad.nd.array(x), out)
    got = out.numpy()
    with np.errstate(over="ignore", under="ignore"):
        want = np.exp(x.astype(np.float64)).astype(np.float32)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert np.array_equal(np.isinf(got[ok]), np.isinf(want[ok]))
    assert got[0] == 1.0 and got[1] == 1.0
    # subnormal results keep their magnitude (to a relative 1e-5 of the smallest normal)
    np.testing.assert_allclose(got[ok], want[ok], rtol=2e-7, atol=1e-43)


def test_sigmoid_of_a_vector_uses_the_inline_exp_and_matches_numpy():
    x = np.linspace(-30, 30, 1024, dtype=np.float32)
    f, s, args = _exp_kernel(1024, 16, body=te.sigmoid)
    out = tepad.nd.empty((1024,), "float32")
    f(tepad.nd.array(x), out)
    np.testing.assert_allclose(out.numpy(), 1 / (1 + np.exp(-x.astype(np.float64))),
                               rtol=1e-6, atol=1e-7)


def test_no_expf_call_is_left_in_a_vectorized_kernel():
    f, _, _ = _exp_kernel(256, 16)
    ll = f.get_source("ll")
    assert "llvm.exp.v" not in ll and "@expf" not in ll
    assert "llvm.rint.v16f32" in ll
