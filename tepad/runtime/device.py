"""``Device``: where an array lives and a kernel runs, as TVM's ``tvm.runtime.Device``.

``cpu(0)`` always exists. ``cuda(k)`` exists when the CUDA driver (cuda-bindings, asked
lazily: ``tepad.runtime.cuda_driver``) sees GPU ``k``, or under ``TEPAD_CUDA=emulate``
(``cuda_emulated()``), where CUDA schedules run on the CPU through tepad's GPU emulator and
cuda arrays live in host memory. The other GPU kinds can be named (``.exist`` is False).
"""
from __future__ import annotations


from .. import config
from ..errors import TepadError, warn_deprecated
from ..target import DEFAULT_CUDA_ARCH
from .cuda_driver import EMULATE_HINT, cuda_available, get_driver

# TVM's DLDeviceType codes and names (v0.18's ``tvm.runtime.Device`` MASK2STR / STR2MASK)
DEVICE_TYPE_TO_NAME = {1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan",
                       8: "metal", 9: "vpi", 10: "rocm", 11: "rocm_host", 12: "ext_dev",
                       13: "cuda_managed", 14: "oneapi", 15: "webgpu", 16: "hexagon",
                       32: "aocl", 33: "sdaccel", 34: "opengl", 35: "microdev"}
DEVICE_NAME_TO_TYPE = {
    "llvm": 1, "cpu": 1, "c": 1, "stackvm": 1, "test": 1, "hybrid": 1, "composite": 1,
    "cuda": 2, "nvptx": 2, "gpu": 2, "cl": 4, "opencl": 4, "sdaccel": 4, "aocl": 32,
    "aocl_sw_emu": 32, "vulkan": 7, "metal": 8, "vpi": 9, "rocm": 10, "ext_dev": 12,
    "hexagon": 16, "webgpu": 15,
}


def cuda_emulated() -> bool:
    """Whether ``TEPAD_CUDA=emulate`` is set (read at each call, not at import): cuda devices
    are then emulated on the CPU."""
    return config.cuda_emulated()


class Device:
    """A device: ``device_type`` (TVM's code, 1 = cpu, 2 = cuda) and ``device_id``.

    Equal devices compare and hash equal; ``repr`` is TVM's ``cpu(0)``."""

    __slots__ = ("device_type", "device_id")

    kDLCPU = 1
    kDLCUDA = 2
    kDLOpenCL = 4

    def __init__(self, device_type: int, device_id: int = 0):
        if device_type not in DEVICE_TYPE_TO_NAME:
            raise TepadError(f"unknown device type {device_type!r}; known: "
                             f"{sorted(DEVICE_TYPE_TO_NAME)} (1 = cpu)")
        if not isinstance(device_id, int) or isinstance(device_id, bool) or device_id < 0:
            raise TepadError(f"device id must be a non-negative int, got {device_id!r}")
        self.device_type = int(device_type)
        self.device_id = int(device_id)

    @property
    def exist(self) -> bool:
        """Whether the device is there: the host CPU (any id, as in TVM); a cuda device when
        the driver sees it or under ``TEPAD_CUDA=emulate``; an opencl device only under
        ``TEPAD_CUDA=emulate`` (tepad has no OpenCL runtime: the emulator runs its kernels)."""
        if self.device_type == 1:
            return True
        if self.device_type == 2:
            return cuda_emulated() or cuda_available(self.device_id)
        if self.device_type == 4:
            return cuda_emulated()
        return False

    @property
    def is_emulated(self) -> bool:
        """Whether this is a cuda or opencl device emulated on the CPU
        (``TEPAD_CUDA=emulate``)."""
        return self.device_type in (2, 4) and cuda_emulated()

    def sync(self) -> None:
        """Wait for the device's pending work: CPU kernels (and emulated GPU ones) run
        synchronously; a real GPU is synchronized through the driver."""
        if self.device_type == 1 or self.is_emulated:
            return
        if not self.exist:
            raise TepadError(missing_message(self))
        drv = get_driver()
        drv.activate(self.device_id)
        drv.synchronize()

    @property
    def device_name(self) -> str:
        return DEVICE_TYPE_TO_NAME[self.device_type]

    # --- TVM's GPU device attributes (None for a device that is not a GPU) ---------------------
    @property
    def compute_version(self) -> str | None:
        """A cuda device's compute capability, ``"9.0"`` (the GPU's, or under emulation the
        cuda target's default architecture); a TepadError when there is no such device."""
        if self.device_type != 2:
            return None
        if self.is_emulated:
            digits = DEFAULT_CUDA_ARCH[3:]
            return f"{digits[:-1]}.{digits[-1]}"
        if not self.exist:
            raise TepadError(missing_message(self, "compute_version"))
        major, minor = get_driver().compute_capability(self.device_id)
        return f"{major}.{minor}"

    @property
    def max_threads_per_block(self) -> int | None:
        return {2: 1024, 4: 256}.get(self.device_type)

    @property
    def warp_size(self) -> int | None:
        return {2: 32, 4: 1}.get(self.device_type)

    @property
    def max_shared_memory_per_block(self) -> int | None:
        """Bytes of shared memory a block gets without opting in (CUDA's 48 KiB; TVM's
        OpenCL default 16 KiB)."""
        return {2: 48 * 1024, 4: 16 * 1024}.get(self.device_type)

    def __eq__(self, other):
        return isinstance(other, Device) and other.device_type == self.device_type and \
            other.device_id == self.device_id

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __repr__(self):
        return f"{DEVICE_TYPE_TO_NAME[self.device_type]}({self.device_id})"

    def __reduce__(self):
        return (Device, (self.device_type, self.device_id))


def device(dev_type, dev_id: int = 0) -> Device:
    """``device("cpu", 0)``, ``device("llvm")``, ``device("cuda", 1)``, ``device(1, 0)``; a
    string may carry the id after a colon (``"cpu:0"``) and target options after a space
    (``"llvm -mcpu=..."``)."""
    if isinstance(dev_type, Device):
        return dev_type
    if isinstance(dev_type, str):
        name = dev_type.split()[0] if dev_type.strip() else ""
        if ":" in name:
            name, _, sid = name.partition(":")
            try:
                dev_id = int(sid)
            except ValueError:
                raise TepadError(f"bad device string {dev_type!r}; use e.g. 'cpu' or "
                                 f"'cpu:0'") from None
        code = DEVICE_NAME_TO_TYPE.get(name)
        if code is None:
            raise TepadError(f"unknown device {dev_type!r}; use 'cpu' or 'llvm' (tepad runs on "
                             f"the host CPU), or one of {sorted(DEVICE_NAME_TO_TYPE)}")
        return Device(code, dev_id)
    if isinstance(dev_type, int) and not isinstance(dev_type, bool):
        return Device(dev_type, dev_id)
    raise TepadError(f"device type must be a string like 'cpu' or an int, got {dev_type!r}")


def cpu(dev_id: int = 0) -> Device:
    """The host CPU, ``cpu(0)``."""
    return Device(1, dev_id)


def cuda(dev_id: int = 0) -> Device:
    """CUDA GPU ``dev_id`` (``.exist`` says whether it is there; see the module doc)."""
    return Device(2, dev_id)


def gpu(dev_id: int = 0) -> Device:
    """TVM's older name of ``cuda`` (deprecated in TVM 0.8; warns once)."""
    warn_deprecated("tvm.gpu", "tvm.cuda")
    return cuda(dev_id)


def context(dev_type, dev_id: int = 0) -> Device:
    """TVM's older name of ``device`` (``tvm.context("llvm", 0)``; warns once)."""
    warn_deprecated("tvm.context", "tvm.device")
    return device(dev_type, dev_id)


def cl(dev_id: int = 0) -> Device:
    """TVM's older name of ``opencl`` (warns once)."""
    warn_deprecated("tvm.cl", "tvm.opencl")
    return opencl(dev_id)


def mtl(dev_id: int = 0) -> Device:
    """TVM's older name of ``metal`` (warns once)."""
    warn_deprecated("tvm.mtl", "tvm.metal")
    return metal(dev_id)


def enabled(target) -> bool:
    """TVM's ``tvm.runtime.enabled(target)``: whether tepad can run code for ``target`` here
    (a target string or Target): the CPU kinds always; ``cuda`` / ``nvptx`` / ``gpu`` when
    a CUDA device is there or emulated (``TEPAD_CUDA=emulate``); other kinds never."""
    text = str(getattr(target, "kind", None) and target.kind.name or target).strip()
    kind = text.split()[0] if text else ""
    code = DEVICE_NAME_TO_TYPE.get(kind)
    if code == 1:
        return True
    if code == 2:
        return cuda(0).exist
    if code == 4:
        return opencl(0).exist
    return False


def take_ctx(dev, ctx, what: str):
    """The device of a call that may name it by TVM's older keyword ``ctx=`` (warns once):
    ``ctx`` when given, else ``dev``; a TepadError when both are."""
    if ctx is None:
        return dev
    warn_deprecated(f"the ctx= keyword of {what}", "device= (dev= for time_evaluator)",
                    stacklevel=4)
    if dev is not None:
        raise TepadError(f"{what}: the device is given twice (as {dev!r} and as ctx={ctx!r}); "
                         "pass it once")
    return ctx


def opencl(dev_id: int = 0) -> Device:
    """OpenCL device ``dev_id``: there (``.exist``) only under ``TEPAD_CUDA=emulate``, where
    its arrays live in host memory and opencl modules run through the GPU emulator."""
    return Device(4, dev_id)


def vulkan(dev_id: int = 0) -> Device:
    return Device(7, dev_id)


def metal(dev_id: int = 0) -> Device:
    return Device(8, dev_id)


def rocm(dev_id: int = 0) -> Device:
    return Device(10, dev_id)


def ext_dev(dev_id: int = 0) -> Device:
    return Device(12, dev_id)


def missing_message(dev: Device, what: str = "") -> str:
    """Why ``dev`` cannot be used here (it does not exist), and what would work."""
    head = f"{what}: " if what else ""
    if dev.device_type == 2:
        return (f"{head}device {dev!r} does not exist on this machine "
                f"({get_driver().unavailable_reason()}); {EMULATE_HINT}, or use cpu(0)")
    if dev.device_type == 4:
        return (f"{head}device {dev!r} does not exist: tepad has no OpenCL runtime; OpenCL "
                f"kernels run through its GPU emulator on the CPU: set TEPAD_CUDA=emulate")
    return f"{head}device {dev!r} does not exist on this machine; tepad runs on the host CPU, " \
        "cpu(0), and on CUDA GPUs"


def check_host(dev, what: str) -> Device:
    """``dev`` as a Device that exists (None means ``cpu(0)``); a TepadError otherwise."""
    if dev is None:
        return cpu(0)
    if not isinstance(dev, Device):
        dev = device(dev)
    if not dev.exist:
        raise TepadError(missing_message(dev, what))
    return dev


__all__ = ["enabled", "Device", "device", "context", "cl", "mtl", "take_ctx", "cpu", "cuda", "gpu", "opencl", "vulkan", "metal", "rocm",
           "ext_dev", "check_host", "cuda_emulated", "missing_message"]
