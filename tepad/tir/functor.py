"""Visitor and mutator base classes over IR nodes, plus one-liner helpers.

Dispatch goes to ``visit_<ClassName>``; without such a method the generic visit walks the node's
``_fields``. Mutators are copy-on-write: a node comes back as the *same object* when none of its
children changed, so passes can tell cheaply whether they did anything.
"""
from __future__ import annotations

from .expr import Node, PrimExpr, Var, Range, convert
from .stmt import Stmt


class Visitor:
    """Read-only walk over expressions and statements."""

    def visit(self, node):
        if isinstance(node, Node):
            meth = getattr(self, "visit_" + type(node).__name__, None)
            if meth is None and isinstance(node, Var):     # SizeVar: visited as a Var
                meth = getattr(self, "visit_Var", None)
            if meth is not None:
                return meth(node)
            return self.generic_visit(node)
        if isinstance(node, (tuple, list)):
            for x in node:
                self.visit(x)
        return None

    def generic_visit(self, node):
        for v in node.field_values():
            if isinstance(v, (Node, tuple, list)):
                self.visit(v)


class Mutator:
    """Rewrite expressions and statements; unchanged subtrees are returned as-is."""

    def visit(self, node):
        if isinstance(node, Node):
            meth = getattr(self, "visit_" + type(node).__name__, None)
            if meth is None and isinstance(node, Var):     # SizeVar: visited as a Var
                meth = getattr(self, "visit_Var", None)
            if meth is not None:
                return meth(node)
            return self.generic_visit(node)
        if isinstance(node, tuple):
            new = tuple(self.visit(x) for x in node)
            return node if all(a is b for a, b in zip(new, node)) else new
        if isinstance(node, list):
            new = [self.visit(x) for x in node]
            return node if all(a is b for a, b in zip(new, node)) else new
        return node

    def generic_visit(self, node):
        if isinstance(node, Var):
            return node
        old = node.field_values()
        new = [self.visit(v) if isinstance(v, (Node, tuple, list)) else v for v in old]
        if all(a is b for a, b in zip(new, old)):
            return node
        return type(node)._make(*new)


def post_order_visit(node, fn):
    """Call ``fn`` on every Node below (and including) ``node``, children first."""

    class _V(Visitor):
        def visit(self, n):
            if isinstance(n, Node):
                self.generic_visit(n)
                fn(n)
            elif isinstance(n, (tuple, list)):
                for x in n:
                    self.visit(x)

    _V().visit(node)


def ir_transform(node, post, pre=None):
    """Rewrite bottom-up: ``post(n)`` may return a replacement or None to keep the node.

    ``pre(n)``, if given, runs before children; a non-None result replaces the subtree without
    visiting it further.
    """

    class _M(Mutator):
        def visit(self, n):
            if isinstance(n, Node):
                if pre is not None:
                    r = pre(n)
                    if r is not None:
                        return r
                n2 = self.generic_visit(n)
                r = post(n2)
                return n2 if r is None else r
            return super().visit(n)

    return _M().visit(node)


class _Substitute(Mutator):
    def __init__(self, vmap):
        self.vmap = vmap

    def visit_Var(self, v):
        return self.vmap.get(v, v)


def substitute(node, vmap: dict):
    """Replace Vars by expressions (keys are Vars; values are exprs or Python numbers)."""
    if not vmap:
        return node
    return _Substitute({k: convert(v) for k, v in vmap.items()}).visit(node)


def collect_vars(node) -> set:
    """All Vars used in ``node`` (identity set)."""
    out = set()

    def f(n):
        if isinstance(n, Var):
            out.add(n)
    post_order_visit(node, f)
    return out


def uses_var(node, var_set) -> bool:
    """Whether any Var of ``var_set`` occurs in ``node``."""
    return bool(collect_vars(node) & set(var_set))


__all__ = ["Visitor", "Mutator", "post_order_visit", "ir_transform", "substitute",
           "collect_vars", "uses_var", "PrimExpr", "Stmt", "Range"]
