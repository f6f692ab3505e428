"""``tvm.testing.utils``: TVM's gallery tutorials from v0.10 on start with
``from tvm import testing; testing.utils.install_request_hook(depth=3)``; the module also
holds the helpers ``tvm.testing`` re-exports."""
import numpy as np
import pytest

import tepad as tvm
from tepad import TepadError, te, testing


def test_a_gallery_preamble_then_a_program_runs(monkeypatch):
    for ci in ("", "true"):
        monkeypatch.setenv("CI", ci)
        assert testing.utils.install_request_hook(depth=3) is None
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] * A[i], name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B])
    a = np.linspace(-2, 2, 16).astype("float32")
    b = np.zeros(16, "float32")
    f(a, b)
    testing.utils.assert_allclose(b, a * a, rtol=1e-6)


def test_utils_holds_the_same_helpers():
    assert testing.utils.assert_allclose is testing.assert_allclose
    assert testing.utils.parameter is testing.parameter
    assert testing.install_request_hook is testing.utils.install_request_hook


@pytest.mark.parametrize("depth", [0, -1, 2.5, "3", True])
def test_depth_must_be_a_positive_int(depth):
    with pytest.raises(TepadError, match="depth"):
        testing.utils.install_request_hook(depth)
