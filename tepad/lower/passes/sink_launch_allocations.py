"""sink_launch_allocations: GPU memory declared around a kernel launch moves into it.

A hybrid script (or a hand-built function) may allocate ``local`` or ``shared`` memory before
the loop it binds to a thread: ``t = allocate((1,), "float32", "local")`` and then
``for i in bind("threadIdx.x", n)``. Such memory belongs to each thread (``local``) or block
(``shared``), as on the GPU; outside the launch it would be one buffer all threads share.

Guarantees: an ``Allocate`` whose scope is neither global nor empty, whose buffer is used
inside exactly one outermost launch region (``thread_extent`` attribute) and nowhere else,
is removed from where it is and placed in that region, just inside its chain of launch
attributes. Other allocations (one used by several kernels keeps its place: a copy per
kernel would need a buffer of its own each), and functions without launches, are
unchanged.
"""
from __future__ import annotations

from ...tir import stmt as S
from ...tir.expr import BufferLoad, PrimExpr
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, collect_vars, ir_transform, post_order_visit
from ...tir.storage_scope import storage_rank
from ..gpu_kernel import is_launch


def _uses(node, var) -> bool:
    """Whether ``node`` names ``var``: as a variable or as the data of a buffer it accesses."""
    found = []

    def visit(n):
        if not found and isinstance(n, (BufferLoad, S.BufferStore)) and n.buffer.data is var:
            found.append(n)
    post_order_visit(node, visit)
    return bool(found) or var in collect_vars(node)


def _used_in_one_launch_only(stmt, var) -> bool:
    """Whether ``var`` is used in ``stmt`` inside exactly one launch region, nowhere else."""
    seen = {"inside": 0, "outside": False}

    def walk(st):
        if st is None or seen["outside"]:
            return
        if is_launch(st):
            seen["inside"] += _uses(st, var)
            return
        for v in st.field_values():
            if isinstance(v, S.Stmt):
                walk(v)
            elif isinstance(v, (tuple, list)):
                for x in v:
                    if isinstance(x, S.Stmt):
                        walk(x)
                    elif isinstance(x, PrimExpr) and _uses(x, var):
                        seen["outside"] = True
            elif isinstance(v, PrimExpr) and _uses(v, var):
                seen["outside"] = True
    walk(stmt)
    return seen["inside"] == 1 and not seen["outside"]


def _into_launches(alloc, stmt):
    def place(region):
        inner = place(region.body) if is_launch(region.body) else \
            S.Allocate(alloc.buffer_var, alloc.dtype, alloc.extents, alloc.condition,
                       region.body, alloc.annotations)
        return S.AttrStmt(region.node, region.attr_key, region.value, inner)

    def pre(st):
        if is_launch(st):
            return place(st) if _uses(st, alloc.buffer_var) else st
        return None
    return ir_transform(stmt, preorder=pre)


class _Sink(Mutator):
    def visit_Allocate(self, s):
        scope = storage_rank(s.annotations.get("scope", ""))
        if scope not in ("", "global") and _used_in_one_launch_only(s.body, s.buffer_var):
            return self.visit(_into_launches(s, s.body))
        return self.generic_visit(s)

    def visit_AttrStmt(self, s):
        if is_launch(s):
            return s          # inside a kernel: nothing to move
        return self.generic_visit(s)


def sink_launch_allocations(func: PrimFunc) -> PrimFunc:
    """``func`` with its scoped allocations around launches moved into them (module doc)."""
    body = _Sink().visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["sink_launch_allocations"]
