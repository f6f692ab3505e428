"""TVM's ``tvm.runtime._ffi_api``: the packed functions of the runtime that TE programs call
directly. tepad has one: ``GetDeviceAttr(device_type, device_id, attr_kind)``, which TVM 0.7's
tensor-core tutorial uses to read the compute capability; it answers from
``tepad.runtime.Device``'s attributes."""
from __future__ import annotations

from ..errors import TepadError
from .device import Device

#: TVM's DeviceAttrKind codes -> the Device attribute answering them
_ATTR_KINDS = {0: "exist", 1: "max_threads_per_block", 2: "warp_size",
               3: "max_shared_memory_per_block", 4: "compute_version", 5: "device_name"}


def GetDeviceAttr(device_type: int, device_id: int, attr_kind: int):  # noqa: N802 - TVM name
    """The attribute ``attr_kind`` (TVM's DeviceAttrKind: 0 exist, 1 max threads per block,
    2 warp size, 3 max shared memory per block, 4 compute version, 5 device name) of device
    ``(device_type, device_id)``; ``exist`` as 0/1, as TVM returns it."""
    name = _ATTR_KINDS.get(attr_kind)
    if name is None:
        known = ", ".join(f"{k} ({v})" for k, v in _ATTR_KINDS.items())
        raise TepadError(f"GetDeviceAttr: attribute kind {attr_kind!r} is not one tepad "
                         f"answers; known: {known}")
    value = getattr(Device(device_type, device_id), name)
    return int(value) if name == "exist" else value


__all__ = ["GetDeviceAttr"]
