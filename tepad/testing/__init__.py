"""Testing helpers. ``reference`` is the numpy oracle: it evaluates compute definitions
directly, ignoring every schedule, and shares no code with lowering. ``random_array``
draws test inputs. The rest are the
``tvm.testing`` helpers TVM's TE tests use (``assert_allclose``, ``parameter(s)``,
``parametrize_targets``, ``requires_llvm`` / ``requires_gpu``, ``main``, ...)."""
from .reference import reference
from .arrays import random_array
from .compare import CompareBeforeAfter
from . import utils
from .utils import install_request_hook
from .tvm_helpers import (assert_allclose, assert_prim_expr_equal, check_numerical_grads,
                          device_enabled, enabled_targets, fixture,
                          known_failing_targets, main, parameter,
                          parameters, parametrize_targets, requires_cuda, requires_gpu,
                          requires_llvm, requires_opencl, requires_rocm, requires_tensorcore,
                          requires_vulkan, skip_if_32bit, skip_if_wheel_test, uses_gpu)

__all__ = ["reference", "assert_allclose", "assert_prim_expr_equal", "fixture", "main",
           "parameter", "parameters", "parametrize_targets", "requires_cuda", "requires_gpu",
           "requires_llvm", "requires_opencl", "requires_rocm", "requires_vulkan",
           "skip_if_32bit", "uses_gpu", "device_enabled", "enabled_targets",
           "check_numerical_grads", "requires_tensorcore", "skip_if_wheel_test",
           "CompareBeforeAfter", "random_array", "known_failing_targets", "utils",
           "install_request_hook"]
