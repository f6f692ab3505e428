"""``tepad.target.Target``: what a kernel is compiled for (TVM's ``tvm.target.Target``).

A target is a kind plus options, written as TVM writes them::

    Target("llvm")                                  # the host CPU
    Target("llvm -mcpu=znver4 -mattr=+avx2,+fma")   # tune for a CPU, with these features
    with Target("llvm -mcpu=skylake"): ...          # Target.current() inside the block

The ``llvm`` kind (the CPU; ``c`` and ``cpu`` are accepted as names for it) builds CPU
kernels. ``cuda`` and ``nvptx`` (NVIDIA GPUs) carry the device limits GPU lowering checks,
as TVM's Target exposes them::

    Target("cuda -arch=sm_80")                      # arch default sm_90
    t.max_num_threads, t.thread_warp_size, t.arch   # 1024, 32, "sm_80"
    t.attrs["max_shared_memory_per_block"]          # 49152 bytes
    tvm.target.cuda(model="h100", arch="sm_90")     # TVM's helper

``opencl`` is a GPU kind too, with TVM's OpenCL limits (256 threads per block, 16 KiB of
local memory, ``thread_warp_size`` 1); tepad prints its kernels as OpenCL C and runs them only
through the GPU emulator. ``intrin`` holds the intrinsic lowering rules registered per
target kind (``register_intrin_lowering``).

 ``-mcpu`` picks the CPU LLVM tunes and schedules for, and, as in TVM, its vector instruction
sets: ``-mcpu=haswell`` builds AVX2 + FMA code on an AVX-512 host, ``-mcpu=generic`` SSE2
(``cpu_model``: AVX, AVX2, FMA and AVX-512F as LLVM's model of the CPU has them; the other
features are the host's). ``-mattr`` then adds or removes features. Nothing the host lacks is
ever used: the kernel runs in this process, so code for another machine would crash it; a
``+f`` the host lacks is refused, and a named CPU's features the host lacks are left out.

What a schedule should assume about the CPU comes from the target too (the host by default):
``vector_lanes(dtype)`` (16 fp32 lanes with AVX-512, 8 with AVX/AVX2, 4 with SSE or NEON),
``vector_bits``, ``has_fma`` and ``vector_registers`` (32 with AVX-512 or on AArch64, 16
otherwise). ``-mattr=-avx512f`` turns off the features built on AVX-512 as well (and
``-avx2`` / ``-avx`` those built on them), so such a target really builds AVX2 code.

"The host" is this machine's CPU unless the environment variable ``TEPAD_HOST_TARGET``
names another (``tepad.target.host``)::

    TEPAD_HOST_TARGET=haswell python -m tepad demo       # as on an AVX2 + FMA CPU
    TEPAD_HOST_TARGET=x86-64 python -m pytest tests/codegen   # as on an SSE2-only CPU
    TEPAD_HOST_TARGET="llvm -mcpu=skylake -mattr=-fma"   # a CPU name and/or -mattr

Then ``Target("llvm")`` (``mcpu`` that CPU, ``vector_lanes``, ``vector_registers``,
``has_fma``), ``tepad.build`` without a target, the examples', topi's and the tuning
templates' schedules and the code LLVM emits are that CPU's, and a named ``-mcpu`` is capped at
it instead of at the machine. The value can only take features away: the named CPU's vector
instruction sets the machine lacks are left out, and a ``+f`` the machine lacks, a CPU name
LLVM does not know or an option other than ``-mcpu`` / ``-mattr`` is a TepadError naming the
variable and the valid values. ``native_cpu_name()`` / ``native_features()`` are the
machine's own, ``host_cpu_name()`` / ``host_features()`` the host's.
"""
from __future__ import annotations

import re
import shlex

from .._lazy import lazy_module
from ..errors import TepadError, warn_deprecated
from .current import current_targets
from . import codegen  # TVM's tvm.target.codegen
from . import intrin  # TVM's tvm.target.intrin (intrinsic lowering rules)
from .intrin import register_intrin_rule
from .cpu_model import vector_features
from .host import (ENV as HOST_TARGET_ENV, describe_host, host_cpu_name, host_feature_string,
                   host_features, native_cpu_name, native_features, turn_off as _turn_off)

_binding = lazy_module("llvmlite.binding")

_CPU_KINDS = {"llvm": "llvm", "c": "llvm", "cpu": "llvm"}
_KNOWN_KINDS = set(_CPU_KINDS) | {"cuda", "nvptx", "rocm", "opencl", "vulkan", "metal"}
_current = current_targets      # the targets of this thread's ``with Target(...)`` blocks
_CUDA_KINDS = ("cuda", "nvptx")
_GPU_KINDS = _CUDA_KINDS + ("opencl",)

# TVM's CUDA target-kind defaults (target_kind.cc), integers as TVM stores them
_GPU_DEFAULTS = {"max_num_threads": 1024, "max_threads_per_block": 1024,
                 "max_shared_memory_per_block": 49152, "thread_warp_size": 32,
                 "registers_per_block": 65536}
# TVM's OpenCL target-kind defaults: no warps (thread_warp_size 1), smaller blocks
_OPENCL_DEFAULTS = {"max_num_threads": 256, "max_threads_per_block": 256,
                    "max_shared_memory_per_block": 16384, "thread_warp_size": 1,
                    "max_function_args": 128}
DEFAULT_CUDA_ARCH = "sm_90"

_DEFAULT_KEYS = {"llvm": ["cpu"], "cuda": ["cuda", "gpu"], "nvptx": ["cuda", "gpu"],
                 "rocm": ["rocm", "gpu"], "opencl": ["opencl", "gpu"], "vulkan": ["vulkan", "gpu"],
                 "metal": ["metal", "gpu"]}


class TargetKind:
    """The kind of a target (``.name``: ``"llvm"``, ...)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"TargetKind({self.name})"


class Target:
    """A parsed target string. ``.kind.name``, ``.attrs`` (``mcpu``, ``mattr`` as a list,
    ``keys``, and any other ``-key=value`` option), ``.host`` (a Target or None),
    ``.mcpu`` and ``.features`` (the LLVM feature string a CPU kernel is built with)."""

    def __init__(self, target, host=None):
        if isinstance(target, Target):
            target, host = str(target), host if host is not None else target.host
        if isinstance(target, dict):
            target = " ".join([target.get("kind", "")] +
                              [f"-{k}={v}" for k, v in target.items() if k != "kind"])
        if not isinstance(target, str) or not target.strip():
            raise TepadError(f"a target is a string such as 'llvm' or "
                             f"'llvm -mcpu=skylake -mattr=+avx2'; got {target!r}")
        words = shlex.split(target)
        kind = words[0]
        if kind not in _KNOWN_KINDS:
            raise TepadError(f"unknown target kind {kind!r} in {target!r}; tepad knows "
                             f"{', '.join(sorted(_KNOWN_KINDS))} and builds for 'llvm'")
        self.kind = TargetKind(_CPU_KINDS.get(kind, kind))
        self.attrs: dict = {}
        for w in words[1:]:
            if not w.startswith("-"):
                raise TepadError(f"target {target!r}: option {w!r} must look like -key=value")
            key, eq, value = w.lstrip("-").partition("=")
            if key == "mattr":
                self.attrs[key] = [f for f in value.split(",") if f]
            elif key == "keys":
                self.attrs[key] = value.split(",")
            else:
                self.attrs[key] = value if eq else True
        if "keys" not in self.attrs:
            keys = list(_DEFAULT_KEYS.get(self.kind.name, [self.kind.name]))
            device = self.attrs.get("device")
            if isinstance(device, str) and device and device not in keys:
                keys.insert(0, device)       # as TVM: "-device=arm_cpu" keys first
            self.attrs["keys"] = keys
        if self.kind.name in _CUDA_KINDS:
            self._gpu_attrs(target)
        elif self.kind.name == "opencl":
            self._limits(target, _OPENCL_DEFAULTS)
            self.attrs.setdefault("model", "unknown")
        self.host = Target(host) if host is not None and not isinstance(host, Target) else host
        self._text = target.strip()

    def _gpu_attrs(self, text):
        """Fill and check the device limits of a ``cuda`` / ``nvptx`` target: ``arch``
        (``sm_XX``; nvptx's ``-mcpu`` names it too), integer limits, TVM's defaults."""
        self._names_arch = "arch" in self.attrs or "mcpu" in self.attrs
        arch = self.attrs.get("arch") or (self.attrs.get("mcpu") if self.kind.name == "nvptx"
                                          else None) or DEFAULT_CUDA_ARCH
        if not isinstance(arch, str) or not re.fullmatch(r"sm_\d+[a-z]?", arch):
            raise TepadError(f"target {text!r}: -arch must name a compute capability such as "
                             f"sm_80 or sm_90, got {arch!r}")
        self.attrs["arch"] = arch
        if self.kind.name == "nvptx":
            self.attrs["mcpu"] = arch
        self._limits(text, _GPU_DEFAULTS)
        self.attrs.setdefault("model", "unknown")

    def _limits(self, text, defaults):
        """The device limits of a GPU target: TVM's ``defaults``, or the positive integers
        the text gives."""
        for key, default in defaults.items():
            value = self.attrs.get(key, default)
            value = None if value is True else value     # "-max_num_threads" with no value
            try:
                value = int(value)
            except (TypeError, ValueError):
                value = -1
            if value <= 0:
                raise TepadError(f"target {text!r}: -{key} must be a positive integer, got "
                                 f"{self.attrs.get(key)!r}")
            self.attrs[key] = value

    # --- GPU limits, as TVM's Target exposes them ---------------------------------------------
    @property
    def max_num_threads(self) -> int:
        """Most threads in one block (TVM's ``Target.max_num_threads``; 1024 for cuda)."""
        return int(self.attrs.get("max_num_threads", 1))

    @property
    def thread_warp_size(self) -> int:
        """Threads of one warp (32 for cuda; 1 for the CPU)."""
        return int(self.attrs.get("thread_warp_size", 1))

    @property
    def max_shared_memory_per_block(self) -> int:
        """Bytes of shared memory one block may use (0 for the CPU)."""
        return int(self.attrs.get("max_shared_memory_per_block", 0))

    @property
    def max_threads_per_block(self) -> int:
        """Most threads in one block (TVM's name beside ``max_num_threads``)."""
        return int(self.attrs.get("max_threads_per_block", self.max_num_threads))

    @property
    def arch(self) -> str:
        """The compute capability (``sm_90``) of a GPU target; ``""`` otherwise."""
        return self.attrs.get("arch", "")

    @property
    def names_arch(self) -> bool:
        """Whether a GPU target's text names its compute capability (``-arch=`` /
        ``-mcpu=``); otherwise ``arch`` is the default and a build may use the GPU's own."""
        return getattr(self, "_names_arch", False)

    @property
    def model(self) -> str:
        """The GPU model a cuda target names (``-model=``), ``"unknown"`` otherwise."""
        return self.attrs.get("model", "unknown")

    @property
    def target_name(self) -> str:
        """TVM 0.6's ``Target.target_name``: the kind's name (``target.kind.name``)."""
        warn_deprecated("Target.target_name", "Target.kind.name")
        return self.kind.name

    @property
    def is_gpu(self) -> bool:
        """Whether this is a GPU target (``cuda`` / ``nvptx`` / ``opencl``)."""
        return self.kind.name in _GPU_KINDS

    # --- what the CPU code generator reads --------------------------------------------------
    @property
    def keys(self) -> list:
        """The target's key list (TVM's ``Target.keys``): ``["cpu"]`` for llvm,
        ``["cuda", "gpu"]`` for cuda."""
        return list(self.attrs["keys"])

    @property
    def mcpu(self) -> str:
        """The CPU LLVM builds for: ``-mcpu``, else the host's (``$TEPAD_HOST_TARGET``'s
        when set, else this machine's); a GPU target's ``sm_XX``."""
        if self.kind.name in _GPU_KINDS:
            return self.attrs.get("arch", "")
        return self.attrs.get("mcpu") or host_cpu_name()

    @property
    def features(self) -> str:
        """The host's features with ``-mattr`` applied, as LLVM's ``+a,-b`` string; a ``+f``
        the host lacks is a TepadError."""
        return ",".join(("+" if v else "-") + k for k, v in sorted(self._feature_map().items()))

    def _feature_map(self, strict: bool = True) -> dict:
        """``{feature: on}``: the host's, less the vector instruction sets a CPU named by
        ``-mcpu`` lacks (``cpu_model.vector_features``), with ``-mattr`` applied; ``strict``: a
        ``+f`` the host lacks is a TepadError (building), else it is taken as asked
        (describing a target)."""
        have = host_features()
        feats = dict(have)
        named = self.attrs.get("mcpu")
        if self.kind.name == "llvm" and isinstance(named, str) and \
                named not in ("native", host_cpu_name()):
            for name, on in vector_features(named).items():
                if not on:
                    _turn_off(feats, name)
        for f in self.attrs.get("mattr", []):
            on, name = f[0] == "+", f.lstrip("+-")
            if strict and on and not have.get(name, False):
                raise TepadError(
                    f"target {self._text!r} asks for +{name}, which this CPU "
                    f"({describe_host()}) does not have; a kernel using it would crash here "
                    f"(drop +{name} from -mattr)")
            if not on:
                _turn_off(feats, name)
            feats[name] = on
        return feats

    def has_feature(self, name: str) -> bool:
        """True when kernels for this target may use the instruction-set feature ``name``
        (the host's features with ``-mattr`` applied, dependents of a disabled feature off; a
        ``+name`` counts even where this host lacks it, so a schedule can be written for
        another machine, though not built here)."""
        if self.kind.name != "llvm":
            return False
        return bool(self._feature_map(strict=False).get(name, False))

    # --- what a schedule may assume about the CPU ---------------------------------------------
    @property
    def is_aarch64(self) -> bool:
        """Whether this process runs on 64-bit ARM (NEON: 32 vector registers, FMA)."""
        return _binding.get_process_triple().startswith(("aarch64", "arm64"))

    @property
    def vector_bits(self) -> int:
        """The width of one SIMD register the target's kernels use: 512 (AVX-512), 256 (AVX;
        integer vectors need AVX2 for 256), 128 (SSE, NEON) -- see ``vector_lanes``."""
        if self.has_feature("avx512f"):
            return 512
        if self.has_feature("avx2") or self.has_feature("avx"):
            return 256
        return 128

    def vector_lanes(self, dtype="float32") -> int:
        """Lanes of ``dtype`` in one SIMD register: 16 fp32 with AVX-512, 8 with AVX2,
        4 with SSE; integers get 128-bit registers with AVX but no AVX2. At least 1."""
        return max(1, self._bits_for(dtype) // _element_bits(dtype))

    def _bits_for(self, dtype) -> int:
        bits = self.vector_bits
        if bits == 256 and not str(dtype).startswith(("float", "bfloat")) and \
                not self.has_feature("avx2"):
            return 128
        return bits

    @property
    def has_fma(self) -> bool:
        """Whether fused multiply-add instructions may be used (x86 FMA3; always on AArch64)."""
        return self.is_aarch64 or self.has_feature("fma")

    @property
    def vector_registers(self) -> int:
        """How many SIMD registers a kernel has: 32 with AVX-512 and on AArch64, else 16."""
        return 32 if self.is_aarch64 or self.has_feature("avx512f") else 16

    # --- TVM habits ---------------------------------------------------------------------------
    # --- TVM's target/host helpers -----------------------------------------------------------
    def with_host(self, host=None) -> "Target":
        """This target with ``host`` as its host (TVM's ``Target.with_host``)."""
        return Target(self._text, host)

    @staticmethod
    def canon_target(target):
        """``target`` as a Target (None stays None), as TVM's ``Target.canon_target``."""
        if target is None:
            return None
        return target if isinstance(target, Target) else Target(target)

    @staticmethod
    def canon_target_and_host(target, target_host=None):
        """TVM's ``Target.canon_target_and_host``: ``(target, host)`` with ``target`` a Target
        whose ``host`` is ``target_host`` when given, and ``host`` that target's host (None
        when there is none). A target of None gives ``(None, target_host)``."""
        target = Target.canon_target(target)
        if target is None:
            return None, target_host
        if target_host is not None:
            target = target.with_host(target_host)
        return target, target.host

    def __enter__(self):
        _current.push(self)
        return self

    def __exit__(self, *exc):
        _current.pop()

    @staticmethod
    def current(allow_none=True):
        """The innermost ``with Target(...)`` target of this thread, or None."""
        target = _current.top()
        if target is not None:
            return target
        if not allow_none:
            raise TepadError("no target is set: use `with tepad.target.Target('llvm'):`")
        return None

    def __str__(self):
        return self._text

    def __repr__(self):
        return f"Target({self._text!r})"

    def __eq__(self, other):
        return isinstance(other, Target) and str(self) == str(other) and self.host == other.host

    def __hash__(self):
        return hash(self._text)

    # --- TVM's other Target accessors -----------------------------------------------------------
    @property
    def mattr(self) -> list:
        """The ``-mattr`` features as written (``["+avx2", "+fma"]``)."""
        return list(self.attrs.get("mattr", []))

    @property
    def libs(self) -> list:
        """The ``-libs`` entries (``"llvm -libs=cblas"`` -> ``["cblas"]``)."""
        libs = self.attrs.get("libs")
        return [x for x in libs.split(",") if x] if isinstance(libs, str) else []

    @property
    def device_name(self) -> str:
        """The ``-device`` option, "" when there is none."""
        dev = self.attrs.get("device", "")
        return dev if isinstance(dev, str) else ""

    @property
    def max_function_args(self) -> int:
        """The most arguments a kernel may take (TVM's attribute; tepad's CPU kernels and
        CUDA kernels have no lower limit than the default)."""
        return int(self.attrs.get("max_function_args", 4096 if self.is_gpu else 1 << 16))

    @property
    def options(self) -> list:
        """TVM 0.6's list of the option words (``["-mcpu=skylake", ...]``)."""
        return self._text.split()[1:]

    def export(self) -> dict:
        """The target as a dict: ``kind``, its attributes and the host's export."""
        out = {"kind": self.kind.name, **{k: (list(v) if isinstance(v, list) else v)
                                          for k, v in self.attrs.items()}}
        if self.host is not None:
            out["host"] = self.host.export()
        return out

    def get_kind_attr(self, attr_name: str):
        """A default attribute of the target kind (``max_num_threads`` of cuda, ...); None
        when the kind has no such attribute."""
        return self.attrs.get(attr_name)

    def get_target_device_type(self) -> int:
        """TVM's device type code: 1 for a CPU target, 2 for cuda / nvptx, 4 for opencl."""
        if self.kind.name == "opencl":
            return 4
        return 2 if self.is_gpu else 1

    @staticmethod
    def list_kinds() -> list:
        """The target kinds tepad parses (it builds for llvm, cuda / nvptx and opencl)."""
        return sorted(_KNOWN_KINDS)

    @staticmethod
    def target_or_current(target):
        """``target`` as a Target, or the current ``with`` target when it is None (a
        TepadError when neither is there)."""
        if target is None:
            return Target.current(allow_none=False)
        return target if isinstance(target, Target) else Target(target)


def _element_bits(dtype) -> int:
    """Bits of one element of a dtype string (``float32`` -> 32, ``bool`` -> 8)."""
    m = re.fullmatch(r"([a-z]+?)(\d*)(x\d+)?", str(dtype))
    if m is None or (not m.group(2) and m.group(1) != "bool"):
        raise TepadError(f"vector_lanes: {dtype!r} is not a dtype such as 'float32' or 'int8'")
    return int(m.group(2)) if m.group(2) else 8


# Target kinds by what the compiler does for them: the one place that names them.
GPU_KINDS = _GPU_KINDS                             # lowered for a thread grid
CUDA_KINDS = _CUDA_KINDS                           # NVIDIA GPUs: PTX, the CUDA driver
OPENCL_KINDS = ("opencl",)                         # OpenCL C source (run by the emulator)
FLAT_MEMORY_KINDS = ("llvm", "cuda", "nvptx", "opencl")  # flat memory: one index per access
# the names TVM's tests give the CPU and a CUDA GPU (target kinds and device names)
CPU_TEST_NAMES = ("llvm", "c", "cpu", "stackvm")
CUDA_TEST_NAMES = ("cuda", "gpu")


def kind_of(target) -> str:
    """The kind name of ``target`` (a Target, or a target string such as ``"cuda -arch=sm_80"``,
    whose first word is taken without building a Target)."""
    if isinstance(target, Target):
        return target.kind.name
    return str(target).split()[0] if str(target).strip() else ""


def is_gpu_kind(target) -> bool:
    """Whether ``target`` (a Target or a target string) runs kernels on a GPU thread grid."""
    return kind_of(target) in GPU_KINDS


def is_cuda_kind(target) -> bool:
    """Whether ``target`` (a Target or a target string) is an NVIDIA GPU (``cuda`` /
    ``nvptx``)."""
    return kind_of(target) in CUDA_KINDS


def is_opencl_kind(target) -> bool:
    """Whether ``target`` (a Target or a target string) is an OpenCL device."""
    return kind_of(target) in OPENCL_KINDS


def has_flat_memory(target) -> bool:
    """Whether ``target``'s code generators take flat memory (one index per access)."""
    return kind_of(target) in FLAT_MEMORY_KINDS


def is_cpu_kind(target) -> bool:
    """Whether ``target`` is the CPU (``llvm``)."""
    return kind_of(target) == "llvm"


def as_target(target) -> Target:
    """``target`` as a Target: a Target, a target string, or None (the ``with`` target, else
    the host CPU)."""
    if target is None:
        return Target.current() or Target("llvm")
    return target if isinstance(target, Target) else Target(target)


def cuda(model="unknown", arch=None, options=None) -> Target:
    """TVM's ``tvm.target.cuda``: a ``cuda`` Target for GPU ``model`` with compute capability
    ``arch`` (default sm_90); ``options``: more ``-key=value`` words (a string or a list)."""
    words = ["cuda", f"-model={model}", f"-arch={arch or DEFAULT_CUDA_ARCH}"]
    if options:
        words += options.split() if isinstance(options, str) else list(options)
    return Target(" ".join(words))


def opencl(model="unknown", options=None) -> Target:
    """An ``opencl`` Target for device ``model`` (TVM's OpenCL limits: 256 threads per block,
    no warps); ``options``: more ``-key=value`` words (a string or a list)."""
    words = ["opencl", f"-model={model}"]
    if options:
        words += options.split() if isinstance(options, str) else list(options)
    return Target(" ".join(words))


def llvm(options=None) -> Target:
    """TVM's ``tvm.target.llvm``: the CPU target, with ``options`` (more ``-key=value``
    words, a string or a list)."""
    words = ["llvm"]
    if options:
        words += options.split() if isinstance(options, str) else list(options)
    return Target(" ".join(words))


def current_target(allow_none: bool = True):
    """TVM 0.6's ``tvm.target.current_target()``: ``Target.current(allow_none)`` (warns
    once)."""
    warn_deprecated("tvm.target.current_target", "tvm.target.Target.current")
    return Target.current(allow_none)


def create(target) -> Target:
    """TVM's older ``tvm.target.create(text)``: the ``Target`` of ``text`` (warns once)."""
    warn_deprecated("tvm.target.create", "tvm.target.Target")
    return Target(target)


# TVM's tvm.target.generic_func (dispatch on the current target's keys)
from .generic_func import (GenericFunc, generic_func, get_native_generic_func,  # noqa: E402
                           override_native_generic_func)
# TVM's helpers for boards and devices
from . import presets as _presets  # noqa: E402


def _preset(text_of):
    def make(*args, **kwargs) -> Target:
        return Target(text_of(*args, **kwargs))
    make.__name__ = make.__qualname__ = text_of.__name__
    make.__doc__ = text_of.__doc__
    return make


arm_cpu, rasp, riscv_cpu, mali, bifrost, intel_graphics, rocm = (
    _preset(getattr(_presets, n)) for n in ("arm_cpu", "rasp", "riscv_cpu", "mali", "bifrost",
                                            "intel_graphics", "rocm"))


__all__ = ["Target", "TargetKind", "as_target", "cuda", "llvm", "create", "current_target",
           "describe_host", "host_cpu_name", "host_feature_string", "host_features",
           "native_cpu_name", "native_features", "HOST_TARGET_ENV", "DEFAULT_CUDA_ARCH",
           "GPU_KINDS", "CUDA_KINDS", "OPENCL_KINDS", "FLAT_MEMORY_KINDS", "opencl",
           "is_cuda_kind", "is_opencl_kind", "CPU_TEST_NAMES", "CUDA_TEST_NAMES", "kind_of",
           "is_gpu_kind", "has_flat_memory", "is_cpu_kind", "intrin", "register_intrin_rule",
           "GenericFunc", "generic_func", "get_native_generic_func",
           "override_native_generic_func", "arm_cpu", "rasp", "riscv_cpu", "mali", "bifrost",
           "intel_graphics", "rocm"]
