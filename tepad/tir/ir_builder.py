"""``tir.ir_builder``: TVM's statement builder, the part tensor intrinsics use
(``ib = ir_builder.create(); ib.emit(call); ib.get()``)."""
from __future__ import annotations

from ..errors import TepadError
from .expr import PrimExpr
from .stmt import Evaluate, Stmt, seq


class IRBuilder:
    """Collects statements in order; ``get()`` returns them as one statement."""

    def __init__(self):
        self._seq: list = []

    def emit(self, stmt):
        """Append ``stmt`` (an expression becomes ``Evaluate(expr)``)."""
        if isinstance(stmt, PrimExpr):
            stmt = Evaluate(stmt)
        if not isinstance(stmt, Stmt):
            raise TepadError(f"ir_builder.emit expects a Stmt or a PrimExpr, got {stmt!r}")
        self._seq.append(stmt)

    def get(self) -> Stmt:
        """The emitted statements in order (one statement; ``Evaluate(0)`` when empty)."""
        if not self._seq:
            return Evaluate(0)
        return self._seq[0] if len(self._seq) == 1 else seq(*self._seq)


def create() -> IRBuilder:
    """A new, empty IRBuilder."""
    return IRBuilder()


__all__ = ["IRBuilder", "create"]
