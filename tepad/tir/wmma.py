"""TVM's tensor-core intrinsics in TIR (``tvm_fill_fragment``, ``tvm_load_matrix_sync``,
``tvm_mma_sync``, ``tvm_store_matrix_sync``) on 16 x 16 fragments: recognising and checking
them, for the emulator's pass and the NVPTX code generator (forms:
``tepad.lower.passes.wmma_fragments``)."""
from __future__ import annotations

from ..errors import TepadError
from .expr import Call, IntImm, StringImm, Var

FRAGMENT = 16
FRAGMENT_SIZE = FRAGMENT * FRAGMENT
WMMA_CALLS = ("tir.tvm_fill_fragment", "tir.tvm_load_matrix_sync", "tir.tvm_mma_sync",
              "tir.tvm_store_matrix_sync")
LAYOUTS = ("row_major", "col_major")


def wmma_op(e) -> str:
    """The op name of call ``e`` with its ``tir.`` prefix."""
    return e.op if e.op.startswith("tir.") else "tir." + e.op


def is_wmma_call(e) -> bool:
    return isinstance(e, Call) and wmma_op(e) in WMMA_CALLS


def check_wmma_call(e, where: str) -> None:
    """A TepadError naming ``where`` unless ``e`` is a wmma call of the form the module doc
    gives (shape 16 x 16 x 16, a known layout, fragments named by their data var)."""
    op = wmma_op(e)
    nargs = {"tir.tvm_fill_fragment": 6, "tir.tvm_load_matrix_sync": 8,
             "tir.tvm_mma_sync": 8, "tir.tvm_store_matrix_sync": 8}[op]
    if len(e.args) != nargs:
        raise TepadError(f"{where}: {op} takes {nargs} arguments, got {len(e.args)}")
    frags = e.args[0::2] if op == "tir.tvm_mma_sync" else [e.args[0]]
    if not all(isinstance(f, Var) for f in frags):
        raise TepadError(f"{where}: {op}: fragments are named by their buffer's data var "
                         f"(BC.data), got {[str(f) for f in frags]}")
    if op != "tir.tvm_mma_sync":
        shape = [int(a.value) if isinstance(a, IntImm) else None for a in e.args[1:4]]
        if shape != [FRAGMENT] * 3:
            raise TepadError(f"{where}: {op} of shape {shape}; tepad supports the "
                             "m16n16k16 fragments (float16 inputs, float32 accumulators)")
    if op in ("tir.tvm_load_matrix_sync", "tir.tvm_store_matrix_sync"):
        layout = e.args[7]
        if not (isinstance(layout, StringImm) and layout.value in LAYOUTS):
            raise TepadError(f"{where}: {op} layout {layout!r}; valid: {', '.join(LAYOUTS)}")
        ptr = e.args[5]
        if not (isinstance(ptr, Call) and wmma_op(ptr) == "tir.tvm_access_ptr"):
            raise TepadError(f"{where}: {op} needs a buffer's access_ptr as its pointer, got "
                             f"{ptr}")


__all__ = ["wmma_op", "FRAGMENT", "FRAGMENT_SIZE", "WMMA_CALLS", "LAYOUTS", "is_wmma_call",
           "check_wmma_call"]
