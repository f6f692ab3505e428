"""Compile a flattened ``PrimFunc`` for the host CPU into a ``CompiledKernel``, with an
in-process cache of the JIT code.

Compiled kernels are cached in-process: compiling a PrimFunc whose printed script, kernel
name, thread count and host CPU match an earlier compile reuses that compile's JIT code (so
rebuilding the same schedule costs printing, not LLVM). Disable with ``TEPAD_COMPILE_CACHE=0``
or ``with tepad.codegen.cache_disabled(): ...``; ``clear_cache()`` empties it.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from dataclasses import dataclass

from .. import config
from .._lazy import lazy_module
from .. import tir
from ..errors import InternalError, TepadError
from ..support.deep_stack import carry_thread_local
from ..support.lru import LRUCache
from ..target.host import host_cpu_name, host_feature_string
from .analysis import shape_vars
from .jit import JitModule
from .threads import default_num_threads

llvm = lazy_module("llvmlite.binding")
# The LLVM IR emitter (and llvmlite.ir) load with the first kernel compiled or cache key made.
_llvm_ir = lazy_module("tepad.codegen.llvm_ir")
parallel = lazy_module("tepad.codegen.parallel")

CACHE_SIZE = 256
_cache = LRUCache(CACHE_SIZE)
_disabled = threading.local()
carry_thread_local(_disabled, "depth")      # tepad.build compiles on a deep-stack worker
stats = {"hits": 0, "misses": 0}


@dataclass(frozen=True)
class CompiledKernel:
    """A kernel compiled and loaded into this process.

    ``jit`` holds the native code (alive as long as this object or another holder of the
    ``JitModule``); its function ``name`` has the signature described in
    ``tepad.codegen.llvm_ir``: one pointer per parameter of ``func``, then one integer per
    ``shape_vars`` entry (vars of ``func``'s buffers), returning 0 or a status ``k`` explained
    by ``messages[k - 1]``. ``source_ll`` is the LLVM IR before optimization (``jit.ll``
    after). ``num_threads``: the team size its parallel loops were compiled for.
    """
    func: tir.PrimFunc
    name: str
    jit: JitModule
    shape_vars: tuple
    messages: tuple
    source_ll: str
    num_threads: int
    symbol: str = ""       # the kernel's function in ``jit`` (``kernel_symbol(name)``)

    @property
    def entry_symbol(self) -> str:
        return self.symbol or self.name


#: what a kernel's function is called when its name is taken by a C or math library function
#: the generated code may call (LLVM lowers ``llvm.exp.f64`` to a call of ``exp``): a kernel
#: named ``exp`` would otherwise call itself
KERNEL_PREFIX = "tepad_kernel_"


def kernel_symbol(name: str) -> str:
    """The LLVM function name of the kernel ``name``: ``name`` itself, unless a library this
    process has loaded (libc, libm, ...) defines a function of that name (``main`` aside),
    or it starts with ``llvm.`` or ``tepad_`` (the generated code's own symbols); then
    ``KERNEL_PREFIX + name``. A name that is empty or not printable ASCII is a TepadError."""
    if not isinstance(name, str) or not name or not name.isascii() or not name.isprintable():
        raise TepadError(f"kernel name {name!r}: a kernel's name must be a non-empty string of "
                         "printable ASCII characters (it becomes the function's symbol), "
                         "e.g. name='add_one'")
    if name.startswith(("llvm.", "tepad_")) or (name != "main" and _process_defines(name)):
        return KERNEL_PREFIX + name
    return name


def _process_defines(name: str) -> bool:
    import ctypes
    try:
        getattr(ctypes.CDLL(None), name)
        return True
    except AttributeError:
        return False


def compile_cache_enabled() -> bool:
    """Whether compiles on this thread use the cache (``TEPAD_COMPILE_CACHE`` is not 0 / false /
    no / off, and no ``cache_disabled()`` block is active)."""
    if getattr(_disabled, "depth", 0):
        return False
    return config.compile_cache()


@contextlib.contextmanager
def cache_disabled():
    """Within this block, compiles neither read nor fill the compile cache (this thread)."""
    _disabled.depth = getattr(_disabled, "depth", 0) + 1
    try:
        yield
    finally:
        _disabled.depth -= 1


def clear_cache() -> None:
    """Forget every cached compile (kernels already handed out stay valid)."""
    _cache.clear()


def _target_key(cpu: str | None, features: str | None) -> str:
    return (cpu or host_cpu_name()) + "|" + (
        features if features is not None else host_feature_string())


def cache_key(func: tir.PrimFunc, name: str, num_threads: int, cpu: str | None = None,
              features: str | None = None) -> str:
    """Structural key of one compile: printed script (buffers, shapes, dtypes, body), kernel
    name, thread count, target (host CPU name + features) and the parallel-loop tuning
    constants. Everything the emitted code depends on, and nothing else."""
    h = hashlib.sha256()
    for part in (func.script(), name, repr(num_threads), "llvm", _target_key(cpu, features),
                 repr((parallel.PARALLEL_MIN_WORK, parallel.CHUNKS_PER_THREAD)),
                 *imported_llvm(func)):      # an imported file's text, not only its path
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _direct_llvm_calls(func: tir.PrimFunc) -> list:
    """Names of the LLVM intrinsics and C functions ``func`` calls by name."""
    names = []

    def visit(n):
        if isinstance(n, tir.Call) and n.op in _DIRECT_CALLS and n.args and \
                isinstance(n.args[0], tir.StringImm) and n.args[0].value not in names:
            names.append(n.args[0].value)
    tir.post_order_visit(func.body, visit)
    return names


_DIRECT_CALLS = ("tir.call_llvm_intrin", "tir.call_llvm_pure_intrin", "tir.call_extern",
                 "tir.call_pure_extern")


class _LoopDepth(tir.Visitor):
    def __init__(self):
        self.depth = self.deepest = 0

    def visit_For(self, op):
        self.depth += 1
        self.deepest = max(self.deepest, self.depth)
        self.visit(op.body)
        self.depth -= 1

    def visit(self, node):
        if isinstance(node, tir.PrimExpr):
            return None          # loops are statements
        return super().visit(node)


def loop_depth(stmt) -> int:
    """How many ``For`` loops nest at the deepest point of ``stmt``."""
    v = _LoopDepth()
    v.visit(stmt)
    return v.deepest


IMPORT_LLVM = "pragma_import_llvm"


def imported_llvm(func: tir.PrimFunc) -> list:
    """The LLVM IR texts of ``func``'s ``import_llvm`` pragmas (``s[t].pragma(axis,
    "import_llvm", ll_code)``), in the order they appear, each once. As in TVM, the pragma's
    string may instead be the path of a file holding the IR (text ``.ll``, or bitcode)."""
    found = []

    def visit(n):
        if isinstance(n, tir.AttrStmt) and n.attr_key == IMPORT_LLVM:
            v = n.value.value if isinstance(n.value, tir.StringImm) else n.value
            if not isinstance(v, str):
                raise TepadError(f"pragma import_llvm takes the LLVM IR as a string, got "
                                 f"{type(v).__name__}")
            v = _llvm_text_of(v)
            if v not in found:
                found.append(v)
    tir.post_order_visit(func.body, visit)
    return found


def _llvm_text_of(code: str) -> str:
    """``code`` itself, or the IR text of the file it names (one line naming a file)."""
    if "\n" in code or len(code) > 4096 or not os.path.isfile(code):
        return code
    with open(code, "rb") as f:
        data = f.read()
    if data.startswith(b"BC\xc0\xde"):                       # LLVM bitcode
        try:
            return str(llvm.parse_bitcode(data))
        except RuntimeError as err:
            raise TepadError(f"pragma import_llvm: {code!r} is not valid LLVM bitcode: "
                             f"{err}") from None
    return data.decode("utf-8", errors="replace")


def compile_kernel(func: tir.PrimFunc, name: str | None = None,
                   num_threads: int | None = None, cpu: str | None = None,
                   features: str | None = None) -> CompiledKernel:
    """Compile a flattened ``PrimFunc`` for the host CPU (``cpu`` / ``features``: the LLVM CPU
    name and feature string to build for instead of the host's; see ``tepad.target``).

    ``name`` defaults to ``func.attrs["global_symbol"]`` or "main". ``num_threads`` for
    parallel loops defaults to ``default_num_threads()`` (read now). A cache hit shares the
    earlier compile's ``JitModule``; ``func`` and ``shape_vars`` are always this ``func``'s.
    """
    name = name or func.attrs.get("global_symbol", "main")
    num_threads = num_threads or default_num_threads()
    key = (cache_key(func, name, num_threads, cpu, features) if compile_cache_enabled()
           else None)
    hit = None
    if key is not None:
        hit = _cache.get(key)
    if hit is not None:
        stats["hits"] += 1
        jit, messages, text = hit
        return CompiledKernel(func, name, jit, tuple(shape_vars(func)), messages, text,
                              num_threads, kernel_symbol(name))
    stats["misses"] += 1
    text, messages, svars = _llvm_ir.emit_llvm_module(func, kernel_symbol(name), num_threads,
                                                      use_pool=True)
    try:
        jit = JitModule(text, cpu=cpu, features=features, loop_depth=loop_depth(func.body),
                        imports=imported_llvm(func))
    except InternalError as err:
        calls = _direct_llvm_calls(func)
        if not calls:
            raise
        # LLVM's verifier rejects how the kernel uses an intrinsic the user called by name
        raise TepadError(f"kernel {name}: LLVM rejected a call the kernel makes directly "
                         f"({', '.join(calls)}): {str(err).splitlines()[0]}") from None
    messages = tuple(messages)
    if key is not None and not jit.missing:   # (a later compile may find the symbols loaded)
        _cache.put(key, (jit, messages, text))
    return CompiledKernel(func, name, jit, tuple(svars), messages, text, num_threads,
                          kernel_symbol(name))
