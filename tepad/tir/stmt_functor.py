"""TVM's ``tvm.tir.stmt_functor``: walking and rewriting IR with callbacks.

``ir_transform`` takes TVM's argument order (``stmt, preorder, postorder, only_enable``);
tepad's own ``tepad.tir.functor.ir_transform`` is the same rewrite with ``post`` first."""
from __future__ import annotations

from .functor import ir_transform as _ir_transform
from .functor import Visitor, post_order_visit as _post_order_visit, substitute


def ir_transform(stmt, preorder, postorder, only_enable=None):
    """Rewrite ``stmt``: ``preorder(n)`` (when given) runs before a node's children and a
    non-None result replaces the node without visiting it; ``postorder(n)`` runs after and a
    non-None result replaces it. ``only_enable``: type keys (``"tir.AttrStmt"``) of the nodes
    the callbacks see; other nodes are only walked through."""
    names = None if only_enable is None else {k.split(".")[-1] for k in only_enable}

    def enabled(fn):
        if fn is None:
            return None
        if names is None:
            return fn
        return lambda n: fn(n) if type(n).__name__ in names else None

    post = enabled(postorder) or (lambda n: None)
    return _ir_transform(stmt, post, enabled(preorder))


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
