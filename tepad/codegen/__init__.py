"""LLVM code generation: flattened TIR -> LLVM IR -> JIT -> ``tepad.runtime.Module``.

Compiled kernels are cached in-process: building a PrimFunc whose printed script, kernel name,
argument records, thread count and host CPU match an earlier build reuses that build's JIT code
(so rebuilding the same schedule costs printing plus argument setup, not LLVM). Disable with
``TEPAD_COMPILE_CACHE=0`` or ``with tepad.codegen.cache_disabled(): ...``; ``clear_cache()``
empties it.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections import OrderedDict

from . import parallel
from .analysis import shape_vars
from .llvm_ir import emit_llvm_module
from .parallel import default_num_threads
from .jit import JitModule, host_target_machine, have_gomp

CACHE_SIZE = 256
_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()
_disabled = threading.local()
stats = {"hits": 0, "misses": 0}


def _cache_enabled() -> bool:
    if getattr(_disabled, "depth", 0):
        return False
    return os.environ.get("TEPAD_COMPILE_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


@contextlib.contextmanager
def cache_disabled():
    """Within this block, builds neither read nor fill the compile cache (this thread)."""
    _disabled.depth = getattr(_disabled, "depth", 0) + 1
    try:
        yield
    finally:
        _disabled.depth -= 1


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()


def _host_key() -> str:
    import llvmlite.binding as llvm
    return llvm.get_host_cpu_name() + llvm.get_host_cpu_features().flatten()


def cache_key(func, arg_info, name, num_threads) -> str:
    """Structural key of one build: printed script (buffers, shapes, dtypes, body), kernel
    name, argument records, thread count, target (host CPU name + features)."""
    h = hashlib.sha256()
    for part in (func.script(), name, repr(num_threads), "llvm", _host_key(),
                 repr((parallel.PARALLEL_MIN_WORK, parallel.CHUNKS_PER_THREAD)),
                 repr([(a.name, a.dtype, tuple(map(str, a.logical_shape)),
                        tuple(map(str, a.physical_shape)), tuple(a.axis_separators),
                        str(a.pad_value), bool(getattr(a, "is_output", True)))
                       for a in arg_info])):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def build_module(func, arg_info=None, name=None, num_threads=None):
    """Compile a flattened ``PrimFunc`` for the host CPU and wrap it in a ``Module``.

    ``arg_info``: list of ``ArgInfo``-like records (``name``, ``dtype``, ``logical_shape``,
    ``physical_shape``, ``axis_separators``, ``pad_value``, ``is_output``) in argument order;
    built from ``func.buffer_map`` when None. ``name`` defaults to ``func.attrs["global_symbol"]``
    or "main". ``num_threads`` for parallel loops defaults to ``TEPAD_NUM_THREADS`` or the CPU
    count (read at build time).
    """
    from ..runtime.args import arg_info_from_func
    from ..runtime.module import Module

    name = name or func.attrs.get("global_symbol", "main")
    num_threads = num_threads or default_num_threads()
    if arg_info is None:
        arg_info = arg_info_from_func(func)
    arg_info = list(arg_info)
    key = cache_key(func, arg_info, name, num_threads) if _cache_enabled() else None
    hit = None
    if key is not None:
        with _cache_lock:
            hit = _cache.get(key)
            if hit is not None:
                _cache.move_to_end(key)
    if hit is not None:
        stats["hits"] += 1
        jit, messages, text = hit
        return Module(jit, func, name, arg_info, shape_vars(func), messages, text)
    stats["misses"] += 1
    text, messages, svars = emit_llvm_module(func, name, num_threads, use_gomp=have_gomp())
    jit = JitModule(text)
    if key is not None:
        with _cache_lock:
            _cache[key] = (jit, messages, text)
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return Module(jit, func, name, arg_info, svars, messages, text)


__all__ = ["build_module", "emit_llvm_module", "shape_vars", "JitModule", "cache_disabled",
           "clear_cache", "cache_key", "host_target_machine", "have_gomp", "default_num_threads"]
