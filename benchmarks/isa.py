"""The instruction set the benchmarks build code for (``--isa``), one table for every tool.

``host`` (the default) is what each tool picks for this machine. ``avx2`` builds AVX2 + FMA
code on any AVX2 host, an AVX-512 one included, for every tool of a run:

* tepad: ``Target("llvm -mcpu=haswell -mattr=-avx512f")`` (8 fp32 lanes, 16 vector
  registers; ``-mcpu=haswell`` alone gives Haswell's vector features, as in TVM, and the
  ``-mattr`` says so once more);
* TVM: ``{"kind": "llvm", "mcpu": "haswell"}`` (LLVM takes Haswell's features);
* Halide: ``x86-64-linux-avx-avx2-f16c-fma-sse41`` (no AVX-512 feature);
* numpy: ``OPENBLAS_CORETYPE=Haswell`` (its OpenBLAS is a DYNAMIC_ARCH build) and
  ``NPY_DISABLE_CPU_FEATURES`` without numpy's AVX-512 loops (``X86_V4``, ``AVX512_ICL``,
  ``AVX512_SPR``).

The choice reaches the worker processes and the peer scripts through ``$TEPAD_BENCH_ISA``
(``peers/peer_common.py`` reads it, and holds the assembly check every tool's code goes
through: the peers' folder can be replaced, so it imports nothing of ours). This is
AVX2 code on the host's cores, caches and clock, not a machine with AVX2 alone.
"""
from __future__ import annotations

import os

from tepad.target import Target

from peers.peer_common import ISA_ENV as ENV, avx512_in, check_assembly, isa as current

ISAS = ("host", "avx2")
TEPAD_TARGET = {"host": None, "avx2": "llvm -mcpu=haswell -mattr=-avx512f"}
# what the workers' environment gets (and loses) for each ISA
_ENV_SET = {"host": {}, "avx2": {"OPENBLAS_CORETYPE": "Haswell",
                                 "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}}
_ENV_CLEARED = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")     # they slow numpy's BLAS down
__all__ = ["ENV", "ISAS", "TEPAD_TARGET", "avx512_in", "check_assembly", "check_isa",
           "current", "describe", "target_scope", "tepad_target", "worker_env"]


def check_isa(isa: str) -> str:
    """``isa`` when it is one this module knows; ValueError naming the known ones otherwise."""
    if isa not in ISAS:
        raise ValueError(f"unknown --isa {isa!r}; known: {', '.join(ISAS)}")
    return isa


def tepad_target(isa: str | None = None) -> Target | None:
    """tepad's target for ``isa`` (default: ``current()``); None for the host."""
    text = TEPAD_TARGET[check_isa(isa or current())]
    return Target(text) if text else None


class _NoTarget:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def target_scope(isa: str | None = None):
    """A ``with`` block in which tepad schedules and builds for ``isa`` (nothing for host)."""
    t = tepad_target(isa)
    return t if t is not None else _NoTarget()


def worker_env(isa: str, env: dict | None = None) -> dict:
    """A copy of ``env`` (default ``os.environ``) for a worker or peer process building
    ``isa`` code: ``$TEPAD_BENCH_ISA`` set, numpy's BLAS kernel and SIMD loops pinned for
    ``avx2``; for ``host``, the caller's OpenBLAS kernel overrides removed."""
    out = {k: v for k, v in (os.environ if env is None else env).items()
           if k not in _ENV_CLEARED}
    out.update(_ENV_SET[check_isa(isa)])
    out[ENV] = isa
    return out


def describe(isa: str) -> str:
    """One line for a report: what ``isa`` means for each tool."""
    if check_isa(isa) == "host":
        return "each tool's code for this host"
    env = ", ".join(f"{k}={v!r}" for k, v in _ENV_SET[isa].items())
    return (f"tepad `{TEPAD_TARGET[isa]}`, TVM `llvm -mcpu=haswell`, Halide "
            f"`x86-64-linux-avx-avx2-f16c-fma-sse41`, numpy with {env}")
