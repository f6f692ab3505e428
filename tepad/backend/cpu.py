"""The CPU backend (``llvm``): no passes after ``PIPELINE``; the LLVM code generator
(``tepad.codegen.compile_kernel``) for the target's CPU and features; a ``tepad.runtime.Module``.

Rebuilding what was built before is instant: a schedule whose fingerprint
(``Schedule.fingerprint()``: every stage's state) and arguments match an earlier build, or the
same lowered PrimFunc object, returns the Module built then (Modules hold no per-call state).
Below that, ``tepad.codegen`` caches compiled kernels by their printed IR.
"""
from __future__ import annotations

from .._lazy import lazy_module
from ..codegen import compile_kernel, default_num_threads
from ..errors import TepadError
from ..support.deep_stack import deep_stack
from ..lower.thread_binding import check_cpu_buildable
from ..runtime import Module
from ..runtime.args import arg_info_of
from ..target import Target
from ..target.host import forced_text as forced_host_text
from .base import Backend, named
from .inplace import inplace_pairs
from .rebuild_cache import RebuildCache

llvm = lazy_module("llvmlite.binding")


class CpuBackend(Backend):
    """``llvm``: the host CPU, or the CPU the target names (``-mcpu``, ``-mattr``)."""

    name = "llvm"
    passes = ()

    def __init__(self):
        self._cache = RebuildCache(128)

    def compile(self, func, target: Target, inplace_ok=frozenset()) -> Module:
        cpu, features = cpu_of(target)
        return Module(compile_kernel(func, cpu=cpu, features=features), arg_info_of(func),
                      inplace_ok)

    def build(self, s_or_func, args, name, target: Target, *, checked=False, bounds_check=False,
              exact_bounds=False, index_check=None) -> Module:
        opts = self.options(target, checked, bounds_check, index_check)
        key = self._cache.key(s_or_func, args, name, opts, bool(exact_bounds),
                              default_num_threads(), str(target),
                              forced_host_text())     # "llvm" means $TEPAD_HOST_TARGET's CPU
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        mod = self._build(s_or_func, args, name, opts, exact_bounds, target)
        if not mod.kernel.jit.missing:   # rebuilt once the extern functions it calls are loaded
            self._cache.put(key, mod, (s_or_func, args))
        return mod

    @deep_stack
    def _build(self, s_or_func, args, name, opts, exact_bounds, target):
        check_host_triple(target)
        check_cpu_buildable(s_or_func, str(target))     # on the deep stack: IR nested 100 deep
        func = self.lower(named(s_or_func, name), args, name, opts, exact_bounds)
        return self.compile(func, target, inplace_pairs(s_or_func, args))


_ARCH_ALIASES = {"amd64": "x86_64", "x86-64": "x86_64", "arm64": "aarch64"}


def _arch(triple: str) -> str:
    arch = triple.split("-", 1)[0].lower()
    return _ARCH_ALIASES.get(arch, arch)


def check_host_triple(target: Target) -> None:
    """A TepadError when ``target``'s ``-mtriple`` names another kind of machine than this
    one (an ``arm_cpu`` board from an x86 host): tepad's CPU code runs in this process, and
    it does not cross-compile."""
    triple = target.attrs.get("mtriple")
    if not triple:
        return
    host = llvm.get_process_triple()
    if _arch(triple) != _arch(host):
        raise TepadError(
            f"target {str(target)!r} is for {triple}, and this machine is {host}: tepad "
            "compiles CPU code for the machine it runs on (cross compilation is not there "
            "yet); build with target 'llvm' here, or run the program on that machine")


def cpu_of(target: Target):
    """LLVM CPU name and feature string for ``target``; (None, None) for the plain host."""
    if "mcpu" not in target.attrs and "mattr" not in target.attrs:
        return None, None
    return target.mcpu, target.features


__all__ = ["CpuBackend", "cpu_of"]
