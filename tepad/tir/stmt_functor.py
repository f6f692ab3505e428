"""TVM's ``tvm.tir.stmt_functor``: walking and rewriting IR with callbacks (the functions of
``tepad.tir.functor``; ``ir_transform`` takes TVM's arguments, ``stmt, preorder, postorder,
only_enable``)."""
from __future__ import annotations

from .functor import ir_transform, post_order_visit, substitute

__all__ = ["ir_transform", "post_order_visit", "substitute"]
