"""TVM's ``tvm.tir.stmt_functor``: walking and rewriting IR with callbacks.

``ir_transform`` takes TVM's argument order (``stmt, preorder, postorder, only_enable``);
tepad's own ``tepad.tir.functor.ir_transform`` is the same rewrite with ``post`` first."""
from __future__ import annotations

from .functor import ir_transform as _ir_transform
from .functor import post_order_visit, substitute


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


__all__ = ["ir_transform", "post_order_visit", "substitute"]
