"""``NDArray``: TVM's ``tvm.nd.NDArray`` over a numpy array on the host CPU.

An NDArray owns one C-contiguous numpy array in the machine's byte order; a ``Module`` passes
that array's memory to the kernel directly (no copy), so ``f(a, b)`` with NDArrays writes
``b`` in place exactly as with numpy arrays. ``array`` copies its input (as TVM's does);
``numpy()`` returns a copy. Host memory that ``array``, ``empty`` and ``copyto`` allocate starts on
a ``ALIGNMENT``-byte boundary, as TVM's allocator's does (numpy promises only 16 bytes: a
16-byte offset makes every 64-byte vector access of a kernel straddle two cache lines).

An array on a real CUDA device is a subclass (``tepad.runtime.cuda_module.CudaNDArray``, registered
with ``register_device_arrays``) whose ``_arr`` is a ``DeviceView``; under ``TEPAD_CUDA=emulate``
a cuda array is a plain NDArray in host memory whose ``device`` is ``cuda(k)``.
"""
from __future__ import annotations

import numpy as np

from ..errors import TepadError, TepadTypeError, warn_deprecated
from ..tir import dtype as tir_dtype
from .device import Device, check_host, cpu, take_ctx

# device type -> maker of arrays in that device's memory (``array(np_array, dev)``,
# ``empty(shape, np_dtype, dev)``), registered by the device's runtime module
_DEVICE_ARRAYS: dict = {}
ALIGNMENT = 64     # TVM's kAllocAlignment: one cache line, one AVX-512 vector


def aligned_empty(shape, dtype) -> np.ndarray:
    """An uninitialized C-contiguous numpy array of ``shape`` and ``dtype`` whose data starts
    on an ``ALIGNMENT``-byte boundary (a view into a slightly larger byte buffer)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + ALIGNMENT, np.uint8)
    skip = (-raw.ctypes.data) % ALIGNMENT
    return raw[skip:skip + nbytes].view(dtype).reshape(shape)


def register_device_arrays(device_type: int, maker) -> None:
    """Arrays on devices of ``device_type`` are made by ``maker`` (unless emulated)."""
    _DEVICE_ARRAYS[device_type] = maker


def _maker_of(dev: Device):
    """The maker of arrays on ``dev`` when they live in device memory; None for host memory."""
    if dev.device_type == 1 or dev.is_emulated:
        return None
    return _DEVICE_ARRAYS.get(dev.device_type)


class DeviceView:
    """What an argument check sees of an array in device memory: ``shape``, ``dtype``,
    ``ndim``, ``size``, ``flags`` (contiguous, writable) and ``ctypes.data`` (the device
    address), as a numpy array shows them."""

    __slots__ = ("shape", "dtype", "ndim", "size", "nbytes", "flags", "ctypes", "device")

    class _Flags:
        c_contiguous = True
        writeable = True

    class _Data:
        __slots__ = ("data",)

        def __init__(self, data):
            self.data = data

    def __init__(self, shape, dtype, ptr: int, device: Device):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.ndim = len(self.shape)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        self.flags = DeviceView._Flags
        self.ctypes = DeviceView._Data(int(ptr))
        self.device = device


class NDArray:
    """An n-d array on a device (``cpu(0)``): ``shape``, ``dtype`` (a string such as
    ``"float32"``), ``device``, ``numpy()``, ``copyfrom``, ``copyto``, ``a[:] = value``."""

    __slots__ = ("_arr", "_device", "__weakref__")

    def __init__(self, arr: np.ndarray, device: Device | None = None):
        """Wraps ``arr`` without copying; it must be a C-contiguous numpy array in native byte
        order (use ``tepad.nd.array`` to build one from anything array-like)."""
        if type(arr) is not np.ndarray or not arr.flags.c_contiguous or \
                not arr.dtype.isnative or not arr.flags.writeable:
            raise TepadTypeError("NDArray wraps a writable C-contiguous numpy.ndarray in native "
                                 "byte order; use tepad.nd.array(x) to make one from x")
        self._arr = arr
        self._device = cpu(0) if device is None else device

    # --- what TVM's NDArray has -------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._arr.shape

    @property
    def dtype(self) -> str:
        return self._arr.dtype.name

    @property
    def device(self) -> Device:
        return self._device

    @property
    def ctx(self) -> Device:
        """TVM's older name of ``device`` (warns once)."""
        warn_deprecated("NDArray.ctx", "NDArray.device")
        return self._device

    @property
    def context(self) -> Device:
        """TVM 0.7's name of ``device`` (warns once)."""
        warn_deprecated("NDArray.context", "NDArray.device")
        return self._device

    @property
    def ndim(self) -> int:
        return self._arr.ndim

    @property
    def size(self) -> int:
        return self._arr.size

    def numpy(self) -> np.ndarray:
        """A copy of the contents as a numpy array."""
        return self._arr.copy()

    def asnumpy(self) -> np.ndarray:
        """TVM's older name of ``numpy()`` (warns once)."""
        warn_deprecated("NDArray.asnumpy()", "NDArray.numpy()")
        return self.numpy()

    def copyfrom(self, source) -> "NDArray":
        """Overwrite the contents with ``source`` (an NDArray or anything numpy reads, of the
        same shape; converted to this array's dtype as TVM does). Returns ``self``."""
        if isinstance(source, NDArray):
            src = source.numpy() if isinstance(source._arr, DeviceView) else source._arr
        else:
            try:
                src = np.asarray(source)
            except (TypeError, ValueError) as err:
                raise TepadTypeError(f"NDArray.copyfrom: cannot read {type(source).__name__} "
                                     f"as an array ({err})") from None
        if src.shape != self._arr.shape:
            raise TepadError(f"NDArray.copyfrom: shape {tuple(src.shape)} does not match the "
                             f"NDArray's shape {self._arr.shape}")
        if src.dtype.kind in "OUSV":
            raise TepadTypeError(f"NDArray.copyfrom: cannot copy an array of dtype {src.dtype} "
                                 f"into a {self.dtype} NDArray")
        np.copyto(self._arr, src, casting="unsafe")
        return self

    def copyto(self, target):
        """Copy into ``target``: an NDArray (same shape; returned) or a Device (a new NDArray
        there)."""
        if isinstance(target, NDArray):
            return target.copyfrom(self)
        if isinstance(target, Device):
            dev = check_host(target, "NDArray.copyto")
            maker = _maker_of(dev)
            if maker is not None:
                return maker.array(self._arr, dev)
            out = aligned_empty(self._arr.shape, self._arr.dtype)
            np.copyto(out, self._arr)
            return NDArray(out, dev)
        raise TepadTypeError(f"NDArray.copyto: target must be an NDArray or a Device, got "
                             f"{type(target).__name__}")

    def same_as(self, other) -> bool:
        return self is other

    def __setitem__(self, key, value):
        if not (isinstance(key, slice) and key == slice(None)):
            raise TepadTypeError("NDArray supports only a[:] = value (copy the whole array); "
                                 "for element access use a.numpy()")
        self.copyfrom(value)

    def __array__(self, dtype=None, copy=None):
        """numpy reads the contents (a view; ``np.asarray(nd)`` shares memory)."""
        if dtype is not None and np.dtype(dtype) != self._arr.dtype:
            return self._arr.astype(dtype)
        if copy:
            return self._arr.copy()
        return self._arr

    def __repr__(self):
        return f"<tepad.nd.NDArray shape={self.shape}, {self._device!r}>\n{self._arr!r}"

    def __str__(self):
        return str(self._arr)


def _host_array(x) -> np.ndarray:
    if isinstance(x, NDArray):
        return x._arr
    try:
        a = np.asarray(x)
    except (TypeError, ValueError) as err:
        raise TepadTypeError(f"tepad.nd.array: cannot read {type(x).__name__} as an array "
                             f"({err})") from None
    if a.dtype.kind in "OUSVMm":
        raise TepadTypeError(f"tepad.nd.array: dtype {a.dtype} is not a numeric dtype a kernel "
                             f"can take")
    return a


def array(arr, device=None, mem_scope=None, ctx=None) -> NDArray:
    """A new NDArray holding a copy of ``arr`` (numpy array, NDArray, nested lists, scalar),
    in C order and the machine's byte order; ``device`` defaults to ``cpu(0)`` (``ctx=`` is
    TVM's older keyword for it)."""
    device = take_ctx(device, ctx, "tvm.nd.array")
    dev = check_host(device, "tepad.nd.array")
    if mem_scope not in (None, "global"):
        raise TepadError(f"tepad.nd.array: memory scope {mem_scope!r} is not supported "
                         f"(only the default, global)")
    if isinstance(arr, NDArray) and isinstance(arr._arr, DeviceView):
        arr = arr.numpy()
    a = _host_array(arr)
    dtype = a.dtype if a.dtype.isnative else a.dtype.newbyteorder("=")
    host = aligned_empty(a.shape, dtype)
    np.copyto(host, a, casting="unsafe")
    maker = _maker_of(dev)
    return NDArray(host, dev) if maker is None else maker.array(host, dev)


def empty(shape, dtype="float32", device=None, mem_scope=None, ctx=None) -> NDArray:
    """A new uninitialized NDArray of ``shape`` (an int or a sequence of ints) and ``dtype``
    (``ctx=``: TVM's older keyword for ``device``)."""
    device = take_ctx(device, ctx, "tvm.nd.empty")
    dev = check_host(device, "tepad.nd.empty")
    if mem_scope not in (None, "global"):
        raise TepadError(f"tepad.nd.empty: memory scope {mem_scope!r} is not supported "
                         f"(only the default, global)")
    # a 1-d numpy array of extents is a sequence too (TVM accepts any sequence of ints)
    dims = tuple(shape) if isinstance(shape, (tuple, list)) or (
        hasattr(shape, "ndim") and getattr(shape, "ndim") == 1) else (shape,)
    try:
        dims = tuple(int(d) for d in dims)
    except (TypeError, ValueError):
        raise TepadTypeError(f"tepad.nd.empty: shape must be ints, got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise TepadError(f"tepad.nd.empty: negative dimension in shape {dims}")
    if isinstance(dtype, str) and dtype not in ("", "void"):
        try:                       # tepad's names: vector lanes ("float32x4") and bfloat16
            d = tir_dtype.parse(tir_dtype.canonical(dtype))
        except Exception:  # noqa: BLE001 - numpy's names are tried next
            d = None
        if d is not None and d.code != "handle":
            if d.lanes > 1:        # a trailing axis holds the lanes (as TVM's numpy() shows)
                dims += (d.lanes,)
            dtype = tir_dtype.numpy_name(d.name) if not d.is_bool else "bool"
    try:
        npd = np.dtype(str(dtype) if not isinstance(dtype, np.dtype) else dtype)
    except TypeError:
        raise TepadTypeError(f"tepad.nd.empty: unknown dtype {dtype!r}") from None
    if npd.kind in "OUSVMm":
        raise TepadTypeError(f"tepad.nd.empty: dtype {npd} is not a numeric dtype")
    maker = _maker_of(dev)
    if maker is not None:
        return maker.empty(dims, npd.newbyteorder("="), dev)
    return NDArray(aligned_empty(dims, npd.newbyteorder("=")), dev)


def numpy_of(arrays) -> list:
    """``arrays`` with every NDArray replaced by the numpy array it holds (no copy; a
    ``DeviceView`` for an array in device memory)."""
    return [a._arr if isinstance(a, NDArray) else a for a in arrays]


__all__ = ["NDArray", "array", "empty", "numpy_of", "DeviceView", "register_device_arrays"]
