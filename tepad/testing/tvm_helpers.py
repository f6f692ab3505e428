"""The ``tvm.testing`` helpers TVM's own tests use, for TE test suites run on tepad.

pytest is only needed by the helpers that make fixtures and marks, and is imported when they
are called (it is a test-time dependency, not one of tepad's)."""
from __future__ import annotations

import inspect
import itertools
import sys

import numpy as np

from ..arith import Analyzer
from ..errors import TepadError
from ..runtime import device as make_device
from ..target import CPU_TEST_NAMES, CUDA_TEST_NAMES
from ..tir.expr import convert
from ..tir.structural import structural_equal

_hidden = itertools.count()


def _numpy(x):
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def assert_allclose(actual, desired, rtol=1e-7, atol=1e-7):
    """numpy's assert_allclose on arrays or NDArrays, shapes checked first. A one-element
    array and a scalar compare as equal shapes (TVM before 0.8 compared with broadcasting, and
    its tests check ``b`` of shape (1,) against ``np.sum(a)``)."""
    a, d = _numpy(actual), _numpy(desired)
    if not (a.size == d.size == 1 and min(a.ndim, d.ndim) == 0):
        np.testing.assert_equal(a.shape, d.shape)
    np.testing.assert_allclose(a, d, rtol=rtol, atol=atol, verbose=True)


def assert_prim_expr_equal(lhs, rhs):
    """``lhs`` and ``rhs`` are the same integer expression (their difference simplifies to 0,
    or they are structurally equal after simplification)."""
    ana = Analyzer()
    lhs, rhs = convert(lhs), convert(rhs)
    if structural_equal(ana.simplify(lhs), ana.simplify(rhs)):
        return
    diff = ana.simplify(lhs - rhs)
    if getattr(diff, "value", None) != 0:
        raise AssertionError(f"{lhs} and {rhs} are not equal (difference {diff})")


def _pytest():
    try:
        import pytest
    except ImportError:
        raise TepadError("tepad.testing's fixture helpers need pytest: pip install pytest") \
            from None
    return pytest


def parameter(*values, ids=None, by_dict=None):
    """A fixture taking each of ``values`` in turn (assign it to a module-level name: the name
    is the fixture's, as in TVM). ``by_dict={id: value}`` gives the ids and values together."""
    pytest = _pytest()
    if by_dict is not None:
        if values or ids is not None:
            raise TepadError("tepad.testing.parameter: pass values (and ids) or by_dict, not both")
        ids, values = list(by_dict), list(by_dict.values())

    # *_owner: the fixture may be a class attribute, where pytest passes the instance
    @pytest.fixture(params=list(values), ids=ids)
    def as_fixture(*_owner, request):
        return request.param
    return as_fixture


def parameters(*value_sets, ids=None):
    """Fixtures that vary together: ``a, b = parameters((1, 2), (3, 4))`` gives (a, b) =
    (1, 2), then (3, 4). The shared fixture is added to the calling module under a hidden
    name."""
    pytest = _pytest()
    hidden = f"_tepad_parameters_{next(_hidden)}"
    caller = inspect.currentframe().f_back.f_globals

    @pytest.fixture(params=list(value_sets), ids=ids, name=hidden)
    def shared(*_owner, request):
        return request.param
    caller[hidden] = shared
    n = len(value_sets[0]) if value_sets else 0
    def member(k):
        def one(*_owner, **kwargs):
            return kwargs[hidden][k]
        # pytest reads a fixture's dependencies from its signature: this one needs `hidden`
        one.__signature__ = inspect.Signature(
            [inspect.Parameter("_owner", inspect.Parameter.VAR_POSITIONAL),
             inspect.Parameter(hidden, inspect.Parameter.KEYWORD_ONLY)])
        return pytest.fixture(one)
    return tuple(member(k) for k in range(n))


def fixture(func=None, cache_return_value=False):
    """pytest.fixture (``cache_return_value`` accepted; each use computes anew)."""
    pytest = _pytest()
    return pytest.fixture(func) if func is not None else pytest.fixture


def parametrize_targets(*targets):
    """Run the test for each target (default: ``llvm``, the one tepad builds for), passing
    ``target`` and, when the test takes it, ``dev``."""
    pytest = _pytest()

    def wrap(fn, targets=targets):
        targets = list(targets) or ["llvm"]
        params = inspect.signature(fn).parameters
        if "dev" in params:
            return pytest.mark.parametrize("target,dev",
                                           [(t, make_device(t.split()[0], 0)) for t in targets])(fn)
        return pytest.mark.parametrize("target", targets)(fn)
    if len(targets) == 1 and callable(targets[0]):
        return wrap(targets[0], ())
    return wrap


def requires_llvm(fn=None):
    """Marks a test that needs LLVM: tepad always has it, so the test runs."""
    return fn if fn is not None else (lambda f: f)


def skip_if_32bit(fn=None, reason=""):
    """Skips a test on a 32-bit host (tepad's hosts are 64-bit; the test runs)."""
    pytest = _pytest()
    mark = pytest.mark.skipif(sys.maxsize <= 2**32, reason=reason or "needs a 64-bit host")
    return mark(fn) if fn is not None else mark


def uses_gpu(fn=None):
    """Marks a test that uses a GPU when one is there and the CPU otherwise: it runs."""
    return fn if fn is not None else (lambda f: f)


def _no_gpu(fn=None):
    pytest = _pytest()
    mark = pytest.mark.skip(reason="tepad has no code generator for this GPU kind")
    return mark(fn) if fn is not None else mark


def requires_cuda(fn=None):
    """Runs the test where ``cuda(0)`` exists: a CUDA GPU, or the CPU emulator
    (``TEPAD_CUDA=emulate``, docs/gpu.md); skips it elsewhere, saying which switch runs it."""
    pytest = _pytest()
    mark = pytest.mark.skipif(not make_device("cuda", 0).exist,
                              reason="needs a CUDA GPU (or TEPAD_CUDA=emulate to run it "
                                     "through the CPU emulator)")
    return mark(fn) if fn is not None else mark


requires_gpu = requires_cuda
requires_opencl = requires_vulkan = requires_rocm = requires_tensorcore = _no_gpu


def skip_if_wheel_test(fn=None):
    """Marks a test TVM skips when testing its installed wheel: tepad runs it."""
    return fn if fn is not None else (lambda f: f)


def known_failing_targets(*targets):
    """Marks a test expected to fail on the named target kinds (TVM's decorator): when the
    test's ``target`` argument is of one of those kinds it is reported as an expected
    failure (``pytest.xfail``) instead of run."""
    import functools
    kinds = {_kind(t) for t in targets}

    def wrap(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            target = kwargs.get("target")
            if target is not None and _kind(target) in kinds:
                _pytest().xfail(f"known failing on {_kind(target)}")
            return fn(*args, **kwargs)
        return run
    return wrap


def _kind(target) -> str:
    kind = getattr(target, "kind", None)
    if kind is not None:
        return getattr(kind, "name", str(kind))
    text = str(target).strip()
    if not text:
        raise TepadError("tepad.testing.device_enabled: empty target; give a target string "
                         "such as 'llvm' or 'cuda'")
    return text.split()[0]


def device_enabled(target) -> bool:
    """Whether tests for ``target`` (a string like ``"llvm -mcpu=..."``, a Target, or a
    device kind such as ``"cpu"``) can run here: the CPU kinds (``llvm``, ``c``, ``cpu``)
    always; ``cuda``/``gpu`` where ``cuda(0)`` exists (a GPU, or ``TEPAD_CUDA=emulate``);
    the GPU kinds tepad has no code generator for (opencl, vulkan, rocm, metal, ...) never."""
    kind = _kind(target)
    if kind in CPU_TEST_NAMES:
        return True
    if kind in CUDA_TEST_NAMES:
        return bool(make_device("cuda", 0).exist)
    return False


def enabled_targets():
    """``[(target string, device)]`` for each target tests can run here: ``llvm``, and
    ``cuda`` where ``device_enabled("cuda")``."""
    return [(t, make_device(t, 0)) for t in ("llvm", "cuda") if device_enabled(t)]


def check_numerical_grads(function, input_values, grad_values, function_value=None,
                          delta=1e-3, atol=1e-2, rtol=0.1):
    """Check the gradients ``grad_values`` of the scalar ``function`` at ``input_values``
    against central finite differences with step ``delta``.

    ``input_values`` and ``grad_values`` are both lists (positional arguments) or both dicts
    (keyword arguments) of numpy arrays; ``function_value``, when given, must equal
    ``function`` at the inputs. A gradient passes when its distance from the numerical one
    is at most ``atol + rtol * |numerical|`` (Euclidean norms over the whole array); else an
    AssertionError names the argument and both norms."""
    if isinstance(input_values, dict) != isinstance(grad_values, dict):
        raise TepadError("check_numerical_grads: input_values and grad_values must both be "
                         "lists or both dicts")
    if isinstance(input_values, dict):
        names = list(input_values)
        inputs = {k: np.array(v, dtype="float64", copy=True) for k, v in input_values.items()}
        call = lambda: function(**{k: v.astype(np.asarray(input_values[k]).dtype)  # noqa: E731
                                   for k, v in inputs.items()})
        grads = grad_values
    else:
        names = list(range(len(input_values)))
        inputs = {i: np.array(v, dtype="float64", copy=True) for i, v in enumerate(input_values)}
        call = lambda: function(*[inputs[i].astype(np.asarray(input_values[i]).dtype)  # noqa: E731
                                  for i in names])
        grads = dict(enumerate(grad_values))
        if len(grad_values) != len(input_values):
            raise TepadError(f"check_numerical_grads: {len(grad_values)} gradients for "
                             f"{len(input_values)} inputs")
    if function_value is not None:
        got = float(call())
        if not np.isclose(got, float(function_value), rtol=rtol, atol=atol):
            raise AssertionError(f"function value {got} differs from the given {function_value}")
    for name in names:
        if name not in grads:
            continue
        x = inputs[name]
        numeric = np.zeros_like(x)
        flat, nflat = x.reshape(-1), numeric.reshape(-1)
        for i in range(flat.size):
            keep = flat[i]
            flat[i] = keep + delta
            up = float(call())
            flat[i] = keep - delta
            down = float(call())
            flat[i] = keep
            nflat[i] = (up - down) / (2 * delta)
        given = np.asarray(grads[name], dtype="float64")
        if given.shape != numeric.shape:
            raise AssertionError(f"gradient of argument {name!r} has shape {given.shape}, "
                                 f"the argument {numeric.shape}")
        dist = float(np.linalg.norm(given - numeric))
        ref = float(np.linalg.norm(numeric))
        if dist > atol + rtol * ref:
            raise AssertionError(f"gradient of argument {name!r} is {dist:.4g} away from the "
                                 f"numerical one (norm {ref:.4g}; allowed {atol} + {rtol} x norm)")


def main():
    """Run the calling test file with pytest (TVM's ``tvm.testing.main()``)."""
    pytest = _pytest()
    sys.exit(pytest.main([sys.argv[0]] + sys.argv[1:]))


__all__ = ["assert_allclose", "assert_prim_expr_equal", "parameter", "parameters", "fixture",
           "parametrize_targets", "requires_llvm", "skip_if_32bit", "uses_gpu", "requires_gpu", "requires_cuda",
           "requires_opencl", "requires_vulkan", "requires_rocm", "requires_tensorcore",
           "skip_if_wheel_test", "device_enabled", "enabled_targets", "check_numerical_grads",
           "main"]
