"""Files made from a compiled kernel's optimized LLVM IR: an object file (position-independent
code, to be linked into a shared library), assembly, LLVM IR text and bitcode.

An object file can carry a *payload*: bytes stored under the symbol ``PAYLOAD_SYMBOL`` (and
their count under ``PAYLOAD_SIZE_SYMBOL``), which the runtime uses to keep what a Module needs
besides the code (argument records, messages) inside the shared library itself.
"""
from __future__ import annotations

from .._lazy import lazy_module
from .jit import JitModule, _lock, deep_nest_options, host_target_machine

llvm = lazy_module("llvmlite.binding")

PAYLOAD_SYMBOL = "__tepad_module_payload"
PAYLOAD_SIZE_SYMBOL = "__tepad_module_payload_size"


def _payload_ir(payload: bytes) -> str:
    body = "".join(f"\\{b:02X}" for b in payload)
    n = len(payload)
    return (f"\n@{PAYLOAD_SYMBOL} = constant [{n} x i8] c\"{body}\", align 16\n"
            f"@{PAYLOAD_SIZE_SYMBOL} = constant i64 {n}, align 8\n")


def _module(jit: JitModule, payload: bytes | None, tm) -> llvm.ModuleRef:
    text = jit.ll + (_payload_ir(payload) if payload is not None else "")
    mod = llvm.parse_assembly(text)
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    mod.verify()
    return mod


def object_code(jit: JitModule, payload: bytes | None = None) -> bytes:
    """A relocatable object (ELF on Linux) of ``jit``'s optimized module, compiled as
    position-independent code for the CPU and features ``jit`` was built for (and the
    options of its loop depth, as the JIT code was), with ``payload`` under
    ``PAYLOAD_SYMBOL`` when given."""
    with _lock, deep_nest_options(jit.loop_depth):
        tm = host_target_machine(cpu=jit.cpu, features=jit.features, pic=True)
        return tm.emit_object(_module(jit, payload, tm))


def bitcode(jit: JitModule) -> bytes:
    """LLVM bitcode of ``jit``'s optimized module."""
    with _lock:
        tm = host_target_machine(cpu=jit.cpu, features=jit.features, pic=True)
        return _module(jit, None, tm).as_bitcode()


def assembly(ll: str, cpu: str | None = None, features: str | None = None) -> str:
    """Assembly text of LLVM IR ``ll`` for ``cpu`` / ``features`` (None: the host's)."""
    with _lock:
        tm = host_target_machine(cpu=cpu, features=features)
        return tm.emit_assembly(llvm.parse_assembly(ll))


__all__ = ["PAYLOAD_SYMBOL", "PAYLOAD_SIZE_SYMBOL", "object_code", "bitcode", "assembly"]
