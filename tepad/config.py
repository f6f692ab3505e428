"""Every ``TEPAD_*`` environment variable tepad reads, read here and nowhere else.

Each is read when asked (not at import), so a program or test may set one before the call
that needs it. docs/api.md lists them. The values are defaults for running unchanged
programs: where a variable selects behaviour, an argument of the public function says the same
thing and wins (``tepad.build(..., emulate=True, race_check=True)`` over ``TEPAD_CUDA`` and
``TEPAD_CUDA_RACECHECK``; ``PassLog(print_ir=..., verify=...)`` over ``TEPAD_PRINT_PASSES`` and
``TEPAD_VERIFY_IR``).

=============================  ============================================================
``TEPAD_CUDA=emulate``         cuda targets build for the GPU emulator on the CPU, and cuda
                               devices are emulated (docs/gpu.md)
``TEPAD_CUDA_RACECHECK``       emulated kernels also run threads in reverse order and compare
``TEPAD_CUDA_LAUNCH_BLOCKING`` CUDA modules synchronize and check after every launch (as does
                               ``CUDA_LAUNCH_BLOCKING``)
``TEPAD_HOST_TARGET``          the CPU ``llvm`` means (an LLVM CPU name or an ISA level)
``TEPAD_NUM_THREADS``          threads for parallel loops (default: the CPU count)
``TEPAD_COMPILE_CACHE=0``      compiled kernels and rebuilt Modules are not cached
``TEPAD_PRINT_PASSES``         the IR is printed after every lowering step
``TEPAD_VERIFY_IR``            the IR is checked after every lowering step
``TEPAD_DEBUG``                a TepadError keeps tepad's frames in its traceback
``TEPAD_PTXAS``                the ptxas program (checks generated PTX)
``TEPAD_LIBDEVICE``            libdevice.10.bc (math functions in CUDA kernels)
``TEPAD_MAX_TRIALS``           an upper bound on the trials every tuner measures (AutoTVM
                               tuners, auto_scheduler.TuningOptions)
=============================  ============================================================
"""
from __future__ import annotations

import os

CUDA = "TEPAD_CUDA"
CUDA_RACECHECK = "TEPAD_CUDA_RACECHECK"
CUDA_LAUNCH_BLOCKING = "TEPAD_CUDA_LAUNCH_BLOCKING"
HOST_TARGET = "TEPAD_HOST_TARGET"
NUM_THREADS = "TEPAD_NUM_THREADS"
COMPILE_CACHE = "TEPAD_COMPILE_CACHE"
PRINT_PASSES = "TEPAD_PRINT_PASSES"
VERIFY_IR = "TEPAD_VERIFY_IR"
DEBUG = "TEPAD_DEBUG"
PTXAS = "TEPAD_PTXAS"
LIBDEVICE = "TEPAD_LIBDEVICE"
MAX_TRIALS = "TEPAD_MAX_TRIALS"

_FALSE = ("", "0", "false", "no", "off")
_TRUE = ("1", "true", "yes", "on")


def text(name: str) -> str:
    """The value of ``$name``, stripped; ``""`` when unset."""
    return os.environ.get(name, "").strip()


def flag(name: str) -> bool:
    """Whether ``$name`` is set to anything but ``0`` / ``false`` / ``no`` / ``off``."""
    return text(name).lower() not in _FALSE


def cuda_emulated() -> bool:
    """``TEPAD_CUDA=emulate``: cuda targets build for, and cuda devices are, the emulator."""
    return text(CUDA).lower() == "emulate"


def race_check() -> bool:
    """``TEPAD_CUDA_RACECHECK``: emulated kernels also run in reverse thread order."""
    return flag(CUDA_RACECHECK)


def launch_blocking() -> bool:
    """``TEPAD_CUDA_LAUNCH_BLOCKING`` or ``CUDA_LAUNCH_BLOCKING`` is 1 / true / yes / on."""
    return any(os.environ.get(v, "").strip().lower() in _TRUE
               for v in (CUDA_LAUNCH_BLOCKING, "CUDA_LAUNCH_BLOCKING"))


def host_target_text() -> str:
    """``TEPAD_HOST_TARGET`` (``""``: unset, the machine is the host)."""
    return text(HOST_TARGET)


def num_threads_text() -> str:
    """``TEPAD_NUM_THREADS`` as given (``""``: unset); ``tepad.codegen`` checks it."""
    return text(NUM_THREADS)


def compile_cache() -> bool:
    """``TEPAD_COMPILE_CACHE`` is not 0 / false / no / off (default on)."""
    return text(COMPILE_CACHE).lower() not in ("0", "false", "no", "off")


def print_passes() -> bool:
    """``TEPAD_PRINT_PASSES``: print the IR after every lowering step."""
    return flag(PRINT_PASSES)


def verify_ir() -> bool:
    """``TEPAD_VERIFY_IR``: check the IR after every lowering step."""
    return flag(VERIFY_IR)


def debug_tracebacks() -> bool:
    """``TEPAD_DEBUG``: full tracebacks for TepadErrors."""
    return text(DEBUG).lower() not in ("", "0", "off", "false", "no")


def toolkit_file(name: str) -> str:
    """A CUDA toolkit file's override path (``PTXAS``, ``LIBDEVICE``; ``""``: unset)."""
    return os.environ.get(name) or ""


VARIABLES = (CUDA, CUDA_RACECHECK, CUDA_LAUNCH_BLOCKING, HOST_TARGET, NUM_THREADS, COMPILE_CACHE,
             PRINT_PASSES, VERIFY_IR, DEBUG, PTXAS, LIBDEVICE)

__all__ = ["text", "flag", "cuda_emulated", "race_check", "launch_blocking", "host_target_text",
           "num_threads_text", "compile_cache", "print_passes", "verify_ir", "debug_tracebacks",
           "toolkit_file", "VARIABLES"]
