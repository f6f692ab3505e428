"""TVM's ``topi.gpu``: the GPU dense strategies (small and large batch) and their schedules.
On tepad both computes are ``nn.dense`` and both schedules are ``topi.cuda``'s thread
binding (run them on the CPU with ``TEPAD_CUDA=emulate``)."""
from ..cuda import schedules as _cuda
from ..nn import dense as _dense


def dense_small_batch(data, weight, bias=None, out_dtype=None):
    """``nn.dense`` for the small-batch GPU strategy."""
    return _dense(data, weight, bias, out_dtype)


def dense_large_batch(data, weight, bias=None, out_dtype=None):
    """``nn.dense`` for the large-batch GPU strategy."""
    return _dense(data, weight, bias, out_dtype)


schedule_dense_small_batch = _cuda.schedule_dense_small_batch
schedule_dense_large_batch = _cuda.schedule_dense_large_batch

__all__ = ["dense_small_batch", "dense_large_batch", "schedule_dense_small_batch",
           "schedule_dense_large_batch"]
