"""TVM's ``tvm.tir.stmt_functor``: walking and rewriting IR with callbacks (the functions of
``tepad.tir.functor``; ``ir_transform`` takes TVM's arguments, ``stmt, preorder, postorder,
only_enable``)."""
from __future__ import annotations

from .functor import ir_transform, Visitor, post_order_visit as _post_order_visit, substitute


def post_order_visit(stmt, fvisit):
    """Call ``fvisit(node)`` on every node of ``stmt``, children before their parent."""
    _post_order_visit(stmt, fvisit)


class _PreOrder(Visitor):
    def __init__(self, fvisit):
        self.fvisit = fvisit

    def visit(self, node):
        if not isinstance(node, (list, tuple)) and self.fvisit(node) is False:
            return None
        return super().visit(node)


def pre_order_visit(stmt, fvisit):
    """Call ``fvisit(node)`` on every node of ``stmt`` parent first; a node for which it
    returns ``False`` is not descended into."""
    _PreOrder(fvisit).visit(stmt)


__all__ = ["ir_transform", "post_order_visit", "pre_order_visit", "substitute"]
