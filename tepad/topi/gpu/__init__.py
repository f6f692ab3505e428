"""TVM's ``topi.gpu``: the GPU dense strategies (small and large batch), the NHWC
convolution, and their schedules. On tepad the computes are ``nn``'s and the schedules
``topi.cuda``'s thread binding (run them on the CPU with ``TEPAD_CUDA=emulate``)."""
from ..cuda import schedules as _cuda
from ..nn import conv2d_nhwc as _conv2d_nhwc
from ..nn import dense as _dense


def conv2d_nhwc(data, kernel, strides, padding, dilation, out_dtype=None):
    """NHWC data, HWIO kernel: ``nn.conv2d_nhwc`` (TVM's GPU NHWC strategy)."""
    return _conv2d_nhwc(data, kernel, strides, padding, dilation, out_dtype)


def dense_small_batch(data, weight, bias=None, out_dtype=None):
    """``nn.dense`` for the small-batch GPU strategy."""
    return _dense(data, weight, bias, out_dtype)


def dense_large_batch(data, weight, bias=None, out_dtype=None):
    """``nn.dense`` for the large-batch GPU strategy."""
    return _dense(data, weight, bias, out_dtype)


schedule_dense_small_batch = _cuda.schedule_dense_small_batch
schedule_dense_large_batch = _cuda.schedule_dense_large_batch
schedule_conv2d_nhwc = _cuda.schedule_conv2d_nhwc

__all__ = ["dense_small_batch", "dense_large_batch", "schedule_dense_small_batch",
           "schedule_dense_large_batch", "conv2d_nhwc", "schedule_conv2d_nhwc"]
