"""tepad.testing's tvm.testing helpers, used the way TVM's tests use them (``import tepad as
tvm``): module-level parameters, joint parameters, parametrized targets with devices."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te

dtype = tvm.testing.parameter("float32", "int32")
n, factor = tvm.testing.parameters((16, 4), (30, 8))
SEEN = []


def test_parameter_and_joint_parameters(dtype, n, factor):
    SEEN.append((dtype, n, factor))
    A = te.placeholder((n,), dtype, name="A")
    B = te.compute((n,), lambda i: A[i] + tvm.tir.const(1, dtype), name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=factor)
    f = tvm.build(s, [A, B])
    a = tvm.nd.array(np.arange(n).astype(dtype))
    b = tvm.nd.empty((n,), dtype)
    f(a, b)
    tvm.testing.assert_allclose(b, np.arange(n).astype(dtype) + 1)


def test_joint_parameters_varied_together():
    # runs after the parametrized test above (file order): 2 dtypes x 2 joint sets, never
    # the cross product of n and factor
    assert sorted({(n_, f_) for _, n_, f_ in SEEN}) == [(16, 4), (30, 8)]
    assert len(SEEN) == 4


@tvm.testing.parametrize_targets("llvm", "llvm -mcpu=generic")
def test_parametrize_targets(target, dev):
    assert dev == tvm.cpu(0)
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 2.0, name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B], target=target)
    a = tvm.nd.array(np.ones(8, "float32"), dev)
    b = tvm.nd.empty((8,), "float32", dev)
    f(a, b)
    tvm.testing.assert_allclose(b.numpy(), 2 * np.ones(8))


@tvm.testing.requires_llvm
def test_requires_llvm_runs():
    assert True is not False


def _skip_marks(fn):
    return [m for m in getattr(fn, "pytestmark", []) if m.name == "skipif"]


def test_requires_gpu_skips_without_a_cuda_device(monkeypatch):
    """No GPU and no emulator switch: the mark skips, and its reason names the switch."""
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    if tvm.cuda(0).exist:
        pytest.skip("this machine has a CUDA GPU")

    def gpu_test():
        raise AssertionError("a GPU test ran with no GPU")
    (mark,) = _skip_marks(tvm.testing.requires_gpu(gpu_test))
    assert mark.args[0] is True and "TEPAD_CUDA=emulate" in mark.kwargs["reason"]


def test_requires_cuda_runs_under_the_emulator(monkeypatch):
    monkeypatch.setenv("TEPAD_CUDA", "emulate")

    def gpu_test():
        pass
    (mark,) = _skip_marks(tvm.testing.requires_cuda(gpu_test))
    assert mark.args[0] is False


def test_requires_opencl_skips():
    def opencl_test():
        pass
    marked = tvm.testing.requires_opencl(opencl_test)
    assert [m for m in marked.pytestmark if m.name == "skip"]


def test_assert_prim_expr_equal():
    i = te.var("i")
    tvm.testing.assert_prim_expr_equal((i * 4 + 3) // 4, i)
    with pytest.raises(AssertionError, match="not equal"):
        tvm.testing.assert_prim_expr_equal(i + 1, i)
    with pytest.raises(AssertionError):
        tvm.testing.assert_allclose(np.ones(3), np.ones(4))


def test_assert_allclose_takes_a_one_element_result_against_a_scalar():
    """TVM 0.6's tests check a (1,)-shaped sum against ``np.sum(a)``, a scalar."""
    a = np.arange(5, dtype="float32")
    tvm.testing.assert_allclose(np.array([a.sum()]), np.sum(a))
    with pytest.raises(AssertionError):
        tvm.testing.assert_allclose(np.array([a.sum() + 1]), np.sum(a))
    with pytest.raises(AssertionError):
        tvm.testing.assert_allclose(np.ones((1, 2)), np.ones(2))


def test_device_enabled_and_enabled_targets(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    assert tvm.testing.device_enabled("llvm -mcpu=generic")
    assert tvm.testing.device_enabled(tvm.target.Target("llvm"))
    assert not tvm.testing.device_enabled("opencl")
    assert [t for t, _ in tvm.testing.enabled_targets()][0] == "llvm"
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    assert tvm.testing.device_enabled("cuda")
    pairs = dict(tvm.testing.enabled_targets())
    assert set(pairs) == {"llvm", "cuda"} and pairs["cuda"].exist


def test_check_numerical_grads_compiled_function():
    # f(x, y) = sum(x * x * y): df/dx = 2xy, df/dy = x^2, checked through a tepad kernel
    n = 6
    X = te.placeholder((n,), name="X", dtype="float64")
    Y = te.placeholder((n,), name="Y", dtype="float64")
    k = te.reduce_axis((0, n), name="k")
    F = te.compute((1,), lambda _: te.sum(X[k] * X[k] * Y[k], axis=k), name="F")
    f = tvm.build(te.create_schedule(F.op), [X, Y, F])

    def forward(x, y):
        out = tvm.nd.empty((1,), "float64")
        f(tvm.nd.array(x), tvm.nd.array(y), out)
        return out.numpy()[0]

    rng = np.random.default_rng(1)
    x, y = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    tvm.testing.check_numerical_grads(forward, [x, y], [2 * x * y, x * x],
                                      function_value=float(np.sum(x * x * y)))
    tvm.testing.check_numerical_grads(lambda x, y: forward(x, y), {"x": x, "y": y},
                                      {"y": x * x})
    with pytest.raises(AssertionError, match="argument 0"):
        tvm.testing.check_numerical_grads(forward, [x, y], [x * y, x * x])
    with pytest.raises(tvm.TepadError, match="both"):
        tvm.testing.check_numerical_grads(forward, [x, y], {"x": x})


RAN_KNOWN_FAILING = []


@pytest.mark.parametrize("target", ["llvm", "vulkan -from_device=0", "cuda"])
@tvm.testing.known_failing_targets("vulkan", "cuda")
def test_known_failing_targets_xfails_only_those_kinds(target):
    RAN_KNOWN_FAILING.append(target)
    assert target == "llvm"


def test_known_failing_targets_ran_the_others():
    assert RAN_KNOWN_FAILING == ["llvm"]
