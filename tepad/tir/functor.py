"""Visitor and mutator base classes over IR nodes, plus one-liner helpers.

Dispatch goes to ``visit_<ClassName>``; without such a method the generic visit walks the node's
``_fields``. Mutators are copy-on-write: a node comes back as the *same object* when none of its
children changed, so passes can tell cheaply whether they did anything.
"""
from __future__ import annotations

from .expr import Node, PrimExpr, Var, Range, convert
from .stmt import Stmt


def _dispatch_table(cls) -> dict:
    """``{node type: visit_<Name> function or None}`` for visitor class ``cls``, filled lazily
    (a class's methods are looked up once per node type instead of once per node)."""
    table = cls.__dict__.get("_visit_dispatch")
    if table is None:
        table = {}
        setattr(cls, "_visit_dispatch", table)
    return table


def _lookup(table, cls, ntype):
    fn = getattr(cls, "visit_" + ntype.__name__, None)
    if fn is None and issubclass(ntype, Var):          # SizeVar: visited as a Var
        fn = getattr(cls, "visit_Var", None)
    table[ntype] = fn
    return fn


def _visit_method(visitor, node):
    """The ``visit_<Name>`` function of ``visitor``'s class for ``node`` (None: generic).
    ``visit`` inlines the common case (class and node type seen before): a dict lookup."""
    cls = type(visitor)
    table = _dispatch_table(cls)
    ntype = type(node)
    return table[ntype] if ntype in table else _lookup(table, cls, ntype)


class Visitor:
    """Read-only walk over expressions and statements.

    The walk costs two Python frames per nesting level (``visit`` and ``generic_visit``, or
    one ``visit_<Name>``): deep IR (stages nested in each other's loops) stays far from the
    recursion limit longer; ``tepad.support.deep_stack`` handles what is deeper still."""

    def visit(self, node):
        if isinstance(node, Node):
            try:
                fn = type(self).__dict__["_visit_dispatch"][type(node)]
            except KeyError:
                fn = _visit_method(self, node)
            if fn is not None:
                return fn(self, node)
            return self.generic_visit(node)
        if isinstance(node, (tuple, list)):
            for x in node:
                self.visit(x)
        return None

    def generic_visit(self, node):
        for v in node.field_values():
            if isinstance(v, (tuple, list)):
                for x in v:
                    self.visit(x)
            elif isinstance(v, Node):
                self.visit(v)


    def visit_Block(self, b):
        """A Block: its iter vars (variable and domain) as well as its fields."""
        for iv in b.iter_vars:
            self.visit(iv.var)
            if iv.dom is not None:
                self.visit(iv.dom)
        self.generic_visit(b)


def _remake_itervar(iv, var, dom):
    if var is iv.var and dom is iv.dom:
        return iv
    return type(iv)(dom, var, iv.iter_type, iv.thread_tag)


class Mutator:
    """Rewrite expressions and statements; unchanged subtrees are returned as-is."""

    def visit(self, node):
        if isinstance(node, Node):
            try:
                fn = type(self).__dict__["_visit_dispatch"][type(node)]
            except KeyError:
                fn = _visit_method(self, node)
            if fn is not None:
                return fn(self, node)
            return self.generic_visit(node)
        if isinstance(node, (tuple, list)):
            return self._visit_sequence(node)
        return node

    def _visit_sequence(self, seq):
        """``seq`` (a tuple or list) with every element visited; ``seq`` itself when none
        changed."""
        new = None
        for k, x in enumerate(seq):
            y = self.visit(x)
            if y is not x and new is None:
                new = list(seq[:k])
            if new is not None:
                new.append(y)
        if new is None:
            return seq
        return tuple(new) if isinstance(seq, tuple) else new

    def generic_visit(self, node):
        if isinstance(node, Var):
            return node
        old = node.field_values()
        new = None
        for k, v in enumerate(old):
            if isinstance(v, Node):
                v2 = self.visit(v)
            elif isinstance(v, (tuple, list)):
                v2 = self._visit_sequence(v)
            else:
                continue
            if v2 is not v and new is None:
                new = list(old)
            if new is not None:
                new[k] = v2
        if new is None:
            return node
        return type(node)._make(*new)


    def visit_Block(self, b):
        """A Block: its iter vars are rewritten too (a domain, or a variable renamed to
        another Var; a variable substituted by an expression stays the block's own)."""
        ivs = []
        for iv in b.iter_vars:
            var = self.visit(iv.var)
            var = var if isinstance(var, Var) else iv.var
            dom = self.visit(iv.dom) if iv.dom is not None else None
            ivs.append(_remake_itervar(iv, var, dom))
        b2 = self.generic_visit(b)
        if all(x is y for x, y in zip(ivs, b.iter_vars)):
            return b2
        return b2.replace(iter_vars=tuple(ivs)) if b2 is not b else \
            b.replace(iter_vars=tuple(ivs))


class _PostOrder(Visitor):
    """``post_order_visit``'s walk: one frame per nesting level, one class for every call."""

    def __init__(self, fn):
        self.fn = fn

    def visit(self, n):
        if isinstance(n, Node):
            for v in n.field_values():
                if isinstance(v, Node):
                    self.visit(v)
                elif isinstance(v, (tuple, list)):
                    for x in v:
                        self.visit(x)
            self.fn(n)
        elif isinstance(n, (tuple, list)):
            for x in n:
                self.visit(x)


def post_order_visit(node, fn):
    """Call ``fn`` on every Node below (and including) ``node``, children first."""
    _PostOrder(fn).visit(node)


class _Transform(Mutator):
    """``ir_transform``'s rewrite (see there)."""

    def __init__(self, pre, post):
        self.pre, self.post = pre, post

    def visit(self, n):
        if isinstance(n, Node):
            if self.pre is not None:
                r = self.pre(n)
                if r is not None:
                    return r
            n2 = self.generic_visit(n)
            if self.post is None:
                return n2
            r = self.post(n2)
            return n2 if r is None else r
        return super().visit(n)


def ir_transform(node, preorder=None, postorder=None, only_enable=None):
    """Rewrite ``node`` (TVM's ``tir.stmt_functor.ir_transform``, its argument order).

    ``preorder(n)``, when given, runs before a node's children: a non-None result replaces the
    node without visiting it further. ``postorder(n)``, when given, runs after them: a
    non-None result replaces the node. ``only_enable``: type keys (``"tir.AttrStmt"``) of the
    nodes the callbacks see; other nodes are only walked through.
    """
    if only_enable is not None:
        names = {str(k).split(".")[-1] for k in only_enable}

        def enabled(fn):
            if fn is None:
                return None
            return lambda n: fn(n) if type(n).__name__ in names else None
        preorder, postorder = enabled(preorder), enabled(postorder)
    return _Transform(preorder, postorder).visit(node)


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
