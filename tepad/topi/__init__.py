"""An operator library over ``te`` (TVM's ``topi``).

* elementwise math (``topi.exp``, ``sqrt``, ``sigmoid``, ``cast``, ``clip``, ...; also as
  ``topi.math.*``) and broadcasting binary operators (``add`` ... ``power``, comparisons,
  logical ops; also ``Tensor``'s ``+ - * /``);
* ``topi.transform`` (reshape, transpose, concatenate, split, take, strided_slice, where,
  ...), reductions (sum, max, min, prod, all, any, argmax, argmin), ``elemwise_sum``;
* ``topi.nn`` (convolutions, dense, pooling, softmax, ...), ``topi.image`` (resize);
* extern kernels: ``scatter_elements`` / ``scatter_add``, ``argwhere``, ``dft`` / ``stft``,
  ``sparse_reshape`` / ``sparse_fill_empty_rows``, and ``topi.random`` (Threefry generator,
  uniform / normal / multinomial); cumulative ops (``cumsum``, ``cumprod``, ``scanop``);
* schedules per target: ``topi.x86`` (CPU, reads the target's vector lanes and registers),
  ``topi.cuda`` (thread binding), ``topi.generic`` (chooses by ``with Target(...)``);
* ``topi.utils`` (``get_const_tuple``, ``traverse_inline``, ...; old name ``topi.util``),
  ``topi.tag`` and ``topi.testing`` (numpy references and per-target schedule lookups,
  loaded on first use)."""
from . import cuda, generic, image, math, nn, tag, transform, utils, x86
from . import arm_cpu, bifrost, gpu, hls, intel_graphics, mali
from . import vision
from . import sparse
from . import random
from . import util  # noqa: F401 - TVM's old module name
from .broadcast import (bitwise_and, bitwise_or, bitwise_xor, left_shift, right_shift)
from .math import bitwise_not
from .broadcast import (add, broadcast_to, divide, equal, floor_divide, floor_mod, greater,
                        greater_equal, less, less_equal, logical_and, logical_or, logical_xor,
                        maximum, minimum, mod, multiply, not_equal, power, subtract)
from .math import (abs, atan, cast, ceil, clip, cos, erf, exp, fast_erf, fast_exp,  # noqa: A004
                   fast_tanh, fixed_point_multiply, floor, identity, isfinite, isinf, isnan,
                   log, log2, log10, logical_not, negative, round, rsqrt, sigmoid, sign, sin,
                   reinterpret, sqrt, tan, tanh, trunc)
from .math import (acos, acosh, asin, asinh, atanh, ceil_log2, cosh, erf_legalize,
                   fixed_point_multiply_per_axis, sinh)
from .utils import InvalidShapeError
from .reduction import (all, any, argmax, argmin, collapse_sum, max, min, prod,  # noqa: A004
                        sum)
from .einsum import einsum
from .scatter import scatter_nd
from .argwhere import (argwhere, hybrid_argwhere_1d, hybrid_argwhere_2d, hybrid_argwhere_3d,
                       hybrid_argwhere_4d, hybrid_argwhere_5d)
from .scan import cumprod, cumsum, scanop
from .searchsorted import binary_search, searchsorted   # the function, not the module
from .scatter_elements import scatter_add, scatter_elements
from .signal import dft, stft
from .sparse_reshape import sparse_reshape
from .sparse_fill_empty_rows import sparse_fill_empty_rows
from .sort import argsort, sort, topk
from .unique import unique
from .tensor import elemwise_sum
from .transform import (adv_index, arange, concatenate, dynamic_strided_slice, expand_dims,
                        expand_like, flip, full, full_like, gather, gather_nd,
                        invert_permutation, layout_transform, matmul, matrix_set_diag,
                        meshgrid, ndarray_size, one_hot, repeat, reshape, reverse,
                        reverse_sequence, sequence_mask, shape, sliding_window,
                        sparse_to_dense, split, squeeze, stack, strided_set, strided_slice,
                        take, take_legalize, tensordot, tile, transpose, trilu,
                        unravel_index, where)


def __getattr__(name):
    if name == "testing":        # numpy references: loaded on first use, as TVM's
        import importlib
        return importlib.import_module(".testing", __name__)
    raise AttributeError(f"module 'tepad.topi' has no attribute {name!r}")


__all__ = [n for n in dir() if not n.startswith("_")] + ["testing"]

# TVM's per-operator module paths (topi.nn.dilate, topi.cuda.depthwise_conv2d, ...)
from . import legacy_modules as _legacy_modules  # noqa: E402
_legacy_modules.install()
