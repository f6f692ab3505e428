"""Simulated quantization (TVM's ``topi.nn.qnn``): ``simulated_quantize`` /
``simulated_dequantize`` compute what a quantize / dequantize to int8, uint8 or int32 gives
while keeping float values, the target dtype chosen at run time by an int32 code
(``SQNN_DTYPE_TO_CODE``); and the quantized-graph layout hooks, generic functions that
return None unless a target registers a rewrite (as in TVM, where relay calls them)."""
from __future__ import annotations

from ...errors import TepadError
from ...target.generic_func import generic_func
from ...tensor import Tensor, compute
from ...tir import op as tirop
from ...tir.expr import PrimExpr, const, floormod

SQNN_DISABLE = 0
SQNN_INT8 = 1
SQNN_UINT8 = 2
SQNN_INT32 = 3

SQNN_DTYPE_TO_CODE = {"disable": SQNN_DISABLE, "int8": SQNN_INT8, "uint8": SQNN_UINT8,
                      "int32": SQNN_INT32}
SQNN_CODE_TO_DTYPE = {v: k for k, v in SQNN_DTYPE_TO_CODE.items()}

_RANGES = {"int8": (-128, 127), "uint8": (0, 255), "int32": (-2 ** 31, 2 ** 31 - 1)}


def _code(dtype_code, what):
    """The run-time dtype code: a 0-d int tensor read, an int expression, or an int."""
    if isinstance(dtype_code, Tensor):
        if len(dtype_code.shape) != 0:
            raise TepadError(f"{what}: the dtype code tensor {dtype_code.name} must be 0-d")
        return dtype_code[()]
    if isinstance(dtype_code, (int, PrimExpr)):
        return dtype_code if isinstance(dtype_code, PrimExpr) else const(dtype_code, "int32")
    raise TepadError(f"{what}: the dtype is an int32 code (SQNN_DTYPE_TO_CODE), a 0-d tensor "
                     f"or expression holding one; got {dtype_code!r}")


def _params(data, scale, zero_point, axis, what):
    if scale is None or zero_point is None:
        raise TepadError(f"{what}: the scale and zero point tensors are required")
    for t, nm in ((scale, "scale"), (zero_point, "zero_point")):
        if not isinstance(t, Tensor) or len(t.shape) != 1:
            raise TepadError(f"{what}: {nm} must be a 1-d te.Tensor (one value, or one per "
                             f"channel along axis {axis}), got {t!r}")
    n = len(data.shape)
    if not -n <= axis < n:
        raise TepadError(f"{what}: axis {axis} is out of range for {data.name} ({n} dims)")
    return axis % n


def simulated_quantize(data, out_dtype, output_scale=None, output_zero_point=None, axis=-1):
    """``clip(round(data / scale) + zero_point, dtype range)`` as float for the dtype coded
    by ``out_dtype`` (int8, uint8, int32), ``data`` unchanged for ``SQNN_DISABLE``.
    ``output_scale`` / ``output_zero_point`` are 1-d: one value, or one per channel of
    ``axis`` (index taken modulo their extent). One stage, tag ``elemwise``."""
    what = "simulated_quantize"
    code = _code(out_dtype, what)
    ax = _params(data, output_scale, output_zero_point, axis, what)
    dt = data.dtype

    def body(*idx):
        v = data[idx]
        s = output_scale[floormod(idx[ax], output_scale.shape[0])]
        z = output_zero_point[floormod(idx[ax], output_zero_point.shape[0])].astype(dt)
        q = tirop.round(v / s.astype(dt)) + z
        out = v
        for name in ("int8", "uint8", "int32"):
            lo, hi = _RANGES[name]
            clipped = tirop.max(tirop.min(q, const(float(hi), dt)), const(float(lo), dt))
            out = tirop.if_then_else(code == SQNN_DTYPE_TO_CODE[name], clipped, out)
        return out
    return compute(data.shape, body, name="T_simulated_quantize", tag="elemwise")


def simulated_dequantize(data, in_dtype, input_scale=None, input_zero_point=None, axis=-1):
    """``(data - zero_point) * scale`` when ``in_dtype`` codes int8, uint8 or int32,
    ``data`` unchanged for ``SQNN_DISABLE``; parameters as ``simulated_quantize``."""
    what = "simulated_dequantize"
    code = _code(in_dtype, what)
    ax = _params(data, input_scale, input_zero_point, axis, what)
    dt = data.dtype

    def body(*idx):
        v = data[idx]
        s = input_scale[floormod(idx[ax], input_scale.shape[0])].astype(dt)
        z = input_zero_point[floormod(idx[ax], input_zero_point.shape[0])].astype(dt)
        is_int = tirop.any(code == SQNN_INT8, code == SQNN_UINT8, code == SQNN_INT32)
        return tirop.if_then_else(is_int, (v - z) * s, v)
    return compute(data.shape, body, name="T_simulated_dequantize", tag="elemwise")


@generic_func
def qnn_conv2d_alter_layout(_attrs, _inputs, _tinfos, _out_type):
    """Relay's layout hook for qnn.conv2d; None (no change) unless a target registers one."""
    return None


@generic_func
def bias_add_legalize(_attrs, _inputs, _tinfos):
    """Relay's legalization hook for bias_add; None unless a target registers one."""
    return None


@generic_func
def add_alter_layout(_attrs, _inputs, _tinfos, _out_type):
    """Relay's layout hook for add; None unless a target registers one."""
    return None


@generic_func
def qnn_requantize_alter_layout(_attrs, _inputs, _tinfos, _out_type):
    """Relay's layout hook for qnn.requantize; None unless a target registers one."""
    return None


@generic_func
def qnn_dense_alter_layout(_attrs, _inputs, _tinfos, _out_type):
    """Relay's layout hook for qnn.dense; None unless a target registers one."""
    return None


__all__ = ["SQNN_DISABLE", "SQNN_INT8", "SQNN_UINT8", "SQNN_INT32", "SQNN_DTYPE_TO_CODE",
           "SQNN_CODE_TO_DTYPE", "simulated_quantize", "simulated_dequantize",
           "qnn_conv2d_alter_layout", "bias_add_legalize", "add_alter_layout",
           "qnn_requantize_alter_layout", "qnn_dense_alter_layout"]
