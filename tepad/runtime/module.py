"""``Module``: a compiled kernel callable with numpy arrays, and ``build_module``."""
from __future__ import annotations

import ctypes
import os
import tempfile

from .. import tir
from .._lazy import lazy_module
from ..codegen import CompiledKernel, compile_kernel
from ..codegen import pool
from ..codegen.symbols import ERROR_VALUE_SYMBOL
from ..errors import VALUE_MARK, TepadError, TepadTypeError
from .args import ArgChecker, ArgInfo, arg_info_of, scalar_ctype
from .device import check_host, take_ctx
from .module_base import ModuleBase
from .library import (export_library, load_library, read_library, save_module,
                      shared_library_path)
from .native_loop import NativeRepeat
from .ndarray import numpy_of
from .registry import take_error
from .timing import BenchmarkResult, time_repeats

cuda_module = lazy_module("tepad.runtime.cuda_module")     # loading a CUDA module only

class Module(ModuleBase):
    """A compiled kernel. ``mod(*arrays)`` checks every argument (numpy arrays or
    ``tepad.nd.NDArray``s, passed without copies), then runs native code.

    TVM's module methods: ``mod[name]`` / ``mod.get_function(name)`` (the entry, itself
    callable: tepad modules hold one function), ``mod.entry_name``, ``mod.get_source()``
    (LLVM IR text), ``mod.time_evaluator(name, dev, number, repeat, min_repeat_ms)``,
    ``mod.save(path)`` and ``mod.export_library(path)`` (``tepad.runtime.load_module`` loads
    them back).

    Attributes: ``ll`` (optimized LLVM IR), ``unoptimized_ll`` (as emitted), ``arg_info``
    (list of ``ArgInfo``), ``name`` (kernel symbol), ``shape_vars`` (the symbolic vars passed
    after the pointers, in order), ``func`` (the PrimFunc built), ``messages`` (status
    ``k`` means ``messages[k - 1]``), ``kernel`` (the ``CompiledKernel``). The JIT engine lives
    as long as the Module.
    """

    def __init__(self, kernel: CompiledKernel, arg_info: list[ArgInfo] | None = None,
                 inplace_ok=frozenset()):
        """``arg_info``: one record per parameter of ``kernel.func`` (names, and which are
        written, for the checks' messages); from ``kernel.func.buffer_map`` when None.
        ``inplace_ok``: the (input, output) positions that may be one array; every other
        input and output whose memory overlaps is refused (``tepad.backend.inplace``)."""
        func = kernel.func
        if arg_info is None:
            arg_info = arg_info_of(func)
        self.kernel = kernel
        self._jit = kernel.jit  # keeps the engine (and so the code) alive
        self.func = func
        self.name = kernel.name
        self.arg_info = list(arg_info)
        self.shape_vars = list(kernel.shape_vars)
        self.messages = list(kernel.messages)
        self.ll = kernel.jit.ll
        self.unoptimized_ll = kernel.source_ll
        self._checker = ArgChecker(func, self.arg_info, self.shape_vars, inplace_ok)
        argtypes = [ctypes.c_void_p if p in func.buffer_map else scalar_ctype(p.dtype)
                    for p in func.params] + [scalar_ctype(v.dtype) for v in self.shape_vars]
        # a kernel calling extern functions that are not loaded is not loaded itself: asking
        # for its code raises the TepadError naming them (so it can still be inspected)
        self._cfunc = None if kernel.jit.missing else \
            kernel.jit.function(kernel.entry_symbol, ctypes.c_int32, *argtypes)
        if self._cfunc is not None:
            # parallel loops run on the thread pool once their hook points at it
            pool.attach(kernel.jit, kernel.num_threads)
        self._argtypes = argtypes
        self._repeat = None                # the native loop of time_evaluator, made on first use
        self._imports: list = []           # import_module

    def __call__(self, *arrays):
        if self._cfunc is None:
            self._jit.address(self.kernel.entry_symbol)   # raises: names the missing symbols
        ptrs = self._checker.pointers(arrays)
        if ptrs is not None:                       # static shapes, every argument as expected
            status = self._cfunc(*ptrs)
        else:
            ptrs, scalars = self._checker.check_call(arrays)
            status = self._cfunc(*ptrs, *scalars)
        if status != 0:
            self._raise_status(status)

    def _raise_status(self, status: int):
        err = take_error()           # a registered function called by the kernel raised
        if err is not None:
            raise err
        msg = self.messages[status - 1] if 0 < status <= len(self.messages) else \
            f"kernel {self.name} failed with status {status}"
        raise TepadError(self._with_value(msg))

    def _native_block(self, arrays):
        """A function ``block(n)`` calling the kernel ``n`` times in a native loop with
        ``arrays`` (checked here, once), or None when the kernel has no native loop (then
        ``time_evaluator`` calls it from Python)."""
        if self._cfunc is None or type(self).__call__ is not Module.__call__:
            return None                    # a subclass's call does more than the kernel
        if self._repeat is None:
            try:
                self._repeat = NativeRepeat(self.ll, self.kernel.entry_symbol, self._cfunc)
            except NotImplementedError:
                self._repeat = False
        if self._repeat is False:
            return None
        ptrs, scalars = self._checker.check_call(arrays)
        args = [t(v) for t, v in zip(self._argtypes, [*ptrs, *scalars])]
        loop = self._repeat

        def block(n):
            status = loop(n, *args)
            if status != 0:
                self._raise_status(status)
        return block

    def _with_value(self, msg: str) -> str:
        """``msg`` with VALUE_MARK replaced by the value the failed check recorded in the
        kernel's ``tepad_error_value`` (the last one any thread recorded)."""
        if VALUE_MARK not in msg:
            return msg
        addr = self._jit.global_address(ERROR_VALUE_SYMBOL)
        value = str(ctypes.c_int64.from_address(addr).value) if addr else "?"
        return msg.replace(VALUE_MARK, value)

    # --- TVM's runtime.Module methods --------------------------------------------------------
    type_key = "llvm"

    @property
    def imported_modules(self) -> list:
        """The modules ``import_module`` attached, in order."""
        return list(self._imports)

    def import_module(self, module) -> None:
        """Attach ``module`` (TVM's ``Module.import_module``), e.g. the device code loaded
        from ``.ptx`` next to the host part of an emulated CUDA kernel loaded from a shared
        library: that host part already holds the whole kernel as CPU code (the emulator's),
        so it runs alone and the import is recorded in ``imported_modules``. A module
        importing itself is a TepadError."""
        if module is self:
            raise TepadError(f"import_module: module {self.name} cannot import itself")
        if not hasattr(module, "get_source"):
            raise TepadTypeError(f"import_module expects a runtime module (load_module(...)), "
                                 f"got {type(module).__name__}")
        self._imports.append(module)

    def get_source(self, fmt: str = "") -> str:
        """The optimized LLVM IR text (``fmt`` "", "ll" or "llvm"), or assembly ("asm", "s")."""
        if fmt in ("", "ll", "llvm"):
            return self.ll
        if fmt in ("asm", "s"):
            return self._jit.asm
        raise TepadError(f"unknown source format {fmt!r}; use 'll' (LLVM IR) or 'asm'")

    @property
    def asm(self) -> str:
        return self._jit.asm

    def time_evaluator(self, func_name: str | None = None, dev=None, number: int = 10,
                       repeat: int = 1, min_repeat_ms: float = 0,
                       limit_zero_time_iterations: int = 100, cooldown_interval_ms: float = 0,
                       repeats_to_cooldown: int = 1, cache_flush_bytes: int = 0,
                       f_preproc: str = "", ctx=None):
        """TVM's ``mod.time_evaluator(mod.entry_name, dev, number=10, repeat=1,
        min_repeat_ms=0)``: a function that, called with the kernel's arguments, runs it once
        untimed, then ``repeat`` blocks of ``number`` calls (more when a block is shorter than
        ``min_repeat_ms``), and returns a ``BenchmarkResult`` (seconds per call: ``.mean``,
        ``.median``, ``.min``, ``.max``, ``.std``, ``.results`` one per block). ``func_name``
        defaults to the entry; ``dev`` to ``cpu(0)`` (``ctx=`` is TVM's older keyword for it).

        As in TVM, the arguments are checked once per evaluation and each block runs its
        ``number`` calls in a native loop (``native_loop``), timed around the whole loop, so
        the figure is the kernel's time and not Python's call overhead."""
        dev = take_ctx(dev, ctx, "time_evaluator")
        fn = self if func_name is None else self.get_function(func_name)
        check_host(dev, "time_evaluator")
        for what, v in (("number", number), ("repeat", repeat)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise TepadError(f"time_evaluator: {what} must be a positive int, got {v!r}")
        if min_repeat_ms < 0 or cooldown_interval_ms < 0:
            raise TepadError("time_evaluator: min_repeat_ms and cooldown_interval_ms must be "
                             ">= 0")
        if f_preproc:
            raise TepadError(f"time_evaluator: f_preproc {f_preproc!r} is not supported")

        def evaluator(*args):
            args = numpy_of(args)
            fn(*args)                    # checks the arguments once, before any timing
            return BenchmarkResult(time_repeats(
                lambda: fn(*args), number, repeat, float(min_repeat_ms), warmup=0,
                cooldown_s=cooldown_interval_ms / 1e3, repeats_to_cooldown=repeats_to_cooldown,
                block=fn._native_block(args)))
        return evaluator

    # --- files (tepad.runtime.library) --------------------------------------------------------
    def save(self, file_name, fmt: str = "") -> None:
        """Write the module to ``file_name``: an object file (``.o``, for
        ``tepad.contrib.cc.create_shared`` and ``load_module``), LLVM IR (``.ll``), assembly
        (``.s``) or bitcode (``.bc``), by ``fmt`` or the extension (TVM's ``Module.save``)."""
        save_module(self, file_name, fmt)

    def export_library(self, file_name, fcompile=None, workspace_dir=None, **kwargs) -> None:
        """Write the module as a shared library (or a ``.tar`` of its object) that
        ``tepad.runtime.load_module`` loads back into a Module with the same argument checks
        (TVM's ``Module.export_library``; ``fcompile`` / ``kwargs`` as
        ``tepad.contrib.cc.create_shared``'s)."""
        export_library(self, file_name, fcompile, workspace_dir, **kwargs)

    def __repr__(self):
        args = ", ".join(f"{a.name}: {a.dtype}" for a in self.arg_info)
        return f"<tepad.runtime.Module {self.name}({args})>"


def load_module(path, fmt: str = "") -> Module:
    """The Module saved at ``path`` (TVM's ``tvm.runtime.load_module``): a shared library from
    ``export_library`` or ``create_shared``, an object file from ``Module.save`` (linked
    first, with the system compiler), or a ``.tar`` from ``export_library``; for a CUDA
    module the ``CudaModule`` (``tepad.runtime.cuda_library``), and for ``.ptx`` its device
    module (to ``import_module``)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise TepadError(f"load_module: no file {path!r}")
    if (fmt or os.path.splitext(path)[1].lstrip(".")).lower() == "ptx":   # CUDA device code
        return cuda_module.DeviceSourceModule.load(path)
    with tempfile.TemporaryDirectory(prefix="tepad_load_") as tmp:
        lib = shared_library_path(path, tmp)
        mapped = read_library(lib)
        if mapped[1].get("kind") == "cuda_host":          # a CudaModule's host part
            return cuda_module.CudaModule.from_payload(mapped[1], path)
        kernel, arg_info = load_library(lib, mapped)
    return Module(kernel, arg_info)


def build_module(func: tir.PrimFunc, arg_info: list[ArgInfo] | None = None,
                 name: str | None = None, num_threads: int | None = None) -> Module:
    """Compile a flattened ``PrimFunc`` for the host CPU (``tepad.codegen.compile_kernel``,
    cached) and wrap it in a ``Module``.

    ``arg_info``: list of ``ArgInfo``-like records (``name``, ``dtype``, ``logical_shape``,
    ``physical_shape``, ``axis_separators``, ``pad_value``, ``is_output``) in argument order;
    built from ``func.buffer_map`` when None. ``name`` defaults to
    ``func.attrs["global_symbol"]`` or "main". ``num_threads`` for parallel loops defaults to
    ``TEPAD_NUM_THREADS`` or the CPU count (read at build time).
    """
    return Module(compile_kernel(func, name=name, num_threads=num_threads), arg_info)
