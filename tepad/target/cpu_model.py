"""The vector instruction sets of a CPU named by ``-mcpu``, as LLVM's model of it has them.

``Target("llvm -mcpu=haswell")`` means Haswell's instructions to a TVM user: LLVM gives a
named CPU its own feature set. llvmlite has no call that lists the features of a CPU model,
so ``vector_features(cpu)`` asks LLVM for code: one probe function (a 16-lane fp32 fused
multiply-add, an 8-lane int32 multiply and an 8-lane fp32 add) compiled for ``cpu`` with no
feature but 64-bit mode, its assembly read for zmm registers (``avx512f``), ymm registers
(``avx``), 256-bit integer multiplies (``avx2``) and ``vfmadd`` (``fma``). These are the
features schedules read
(``Target.vector_lanes``, ``vector_registers``, ``has_fma``). A name LLVM does not know is
LLVM's generic x86-64 (LLVM says so on stderr), as in TVM.
"""
from __future__ import annotations

import functools
import re

from .._lazy import lazy_module

llvm = lazy_module("llvmlite.binding")

#: the features ``vector_features`` answers for
PROBED = ("avx", "avx2", "fma", "avx512f")

_PROBE_IR = """
define void @probe(ptr %p) {
  %a = load <16 x float>, ptr %p, align 64
  %f = call <16 x float> @llvm.fma.v16f32(<16 x float> %a, <16 x float> %a, <16 x float> %a)
  store <16 x float> %f, ptr %p, align 64
  %q = getelementptr inbounds i8, ptr %p, i64 64
  %b = load <8 x i32>, ptr %q, align 32
  %m = mul <8 x i32> %b, %b
  store <8 x i32> %m, ptr %q, align 32
  %r = getelementptr inbounds i8, ptr %p, i64 96
  %c = load <8 x float>, ptr %r, align 32
  %s = fadd <8 x float> %c, %c
  store <8 x float> %s, ptr %r, align 32
  ret void
}
declare <16 x float> @llvm.fma.v16f32(<16 x float>, <16 x float>, <16 x float>)
"""


def _init_llvm():
    """LLVM's native target and assembly printer, once per process (idempotent)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


@functools.lru_cache(maxsize=None)
def vector_features(cpu: str) -> dict:
    """``{feature: on}`` for each of PROBED in LLVM's model of x86 CPU ``cpu`` (its default
    features, as ``-mcpu=cpu`` alone builds); empty off x86, where there is nothing to probe."""
    _init_llvm()
    target = llvm.Target.from_default_triple()
    if not target.triple.startswith(("x86_64", "i386", "i686")):
        return {}
    # "+64bit": a name LLVM does not know gets no features at all, and 64-bit code for such
    # a subtarget is a fatal LLVM error
    tm = target.create_target_machine(cpu=cpu, features="+64bit", opt=2)
    asm = tm.emit_assembly(llvm.parse_assembly(_PROBE_IR))
    return {
        "avx512f": "%zmm" in asm,
        "avx": "%ymm" in asm or "%zmm" in asm,
        "avx2": re.search(r"vpmulld\s[^\n]*%ymm", asm) is not None,
        "fma": "vfmadd" in asm,
    }


__all__ = ["PROBED", "vector_features"]
