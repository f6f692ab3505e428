"""Structural equality and hashing of IR trees.

``structural_equal(a, b)`` compares field by field; Vars and Buffers compare by identity unless
``map_free_vars=True``, in which case a Var/Buffer met first on the left is bound to the one at
the same place on the right (enough to compare two lowerings of the same schedule).

The IR classes' structural ``==`` (``Range``, ``Stmt``, ``BufferRegion``) and ``bool()`` (``EQ``,
``NE``) call ``structural_equal``; ``structural_hash`` lives in ``tir.expr``, since
``PrimExpr.__hash__`` needs it.
"""
from __future__ import annotations

from .buffer import Buffer
from .expr import Node, Var, structural_hash
from .module import IRModule
from .itervar import IterVar
from .functor import substitute
from .printer import to_script
from .reduce import CommReducer


class _Equal:
    def __init__(self, map_free_vars: bool):
        self.map_free = map_free_vars
        self.vmap: dict = {}     # id(left var/buffer) -> right one
        self.rmap: dict = {}     # id(right var/buffer) -> left one (the mapping is a bijection)

    def eq(self, a, b) -> bool:
        if a is b and (not self.map_free or not isinstance(a, (Node, tuple, list, dict)) and
                       not _is_buffer(a)):
            # with map_free_vars, a shared subtree still has to bind its vars consistently
            return True
        if isinstance(a, Var) or isinstance(b, Var):
            return self._bind(a, b) if isinstance(a, Var) and isinstance(b, Var) and \
                a.dtype == b.dtype else False
        if isinstance(a, Node):
            if type(a) is not type(b):
                return False
            if getattr(a, "_hash", None) is not None and getattr(b, "_hash", None) is not None \
                    and not self.map_free and a._hash != b._hash:
                return False
            return all(self.eq(x, y) for x, y in zip(a.field_values(), b.field_values()))
        if isinstance(a, (tuple, list)):
            return isinstance(b, (tuple, list)) and len(a) == len(b) and \
                all(self.eq(x, y) for x, y in zip(a, b))
        if isinstance(a, dict):
            if not isinstance(b, dict) or len(a) != len(b):
                return False
            if self.map_free and any(isinstance(k, Node) or _is_buffer(k) for k in a):
                # keys are vars (e.g. a buffer_map): match entries in order, binding the keys
                return all(self.eq(ka, kb) and self.eq(va, vb)
                           for (ka, va), (kb, vb) in zip(a.items(), b.items()))
            return a.keys() == b.keys() and all(self.eq(a[k], b[k]) for k in a)
        if isinstance(a, IRModule) or isinstance(b, IRModule):
            # the same function names, each pair of functions equal
            return isinstance(a, IRModule) and isinstance(b, IRModule) and \
                sorted(a.functions) == sorted(b.functions) and \
                all(self.eq(a.functions[k], b.functions[k]) for k in a.functions)
        if isinstance(a, IterVar) and isinstance(b, IterVar):    # a Block's iter vars
            return a.iter_type == b.iter_type and self.eq(a.var, b.var) and \
                self.eq(a.dom, b.dom)
        if isinstance(a, CommReducer) and isinstance(b, CommReducer):
            return self._reducer_eq(a, b)
        if isinstance(a, Buffer) and isinstance(b, Buffer):
            if not self.map_free:
                return False
            return self._bind(a, b) and self.eq(a.shape, b.shape) and a.dtype == b.dtype
        try:
            return bool(a == b)
        except Exception:
            return False

    def _reducer_eq(self, a, b) -> bool:
        """Two combiners are equal when, with ``b``'s lhs/rhs Vars read as ``a``'s (they are
        the combiner's parameters), the results and identity elements are equal."""
        if a.size != b.size or len(a.lhs) != len(b.lhs) or \
                any(x.dtype != y.dtype for x, y in zip(a.lhs + a.rhs, b.lhs + b.rhs)):
            return False
        params = dict(zip(b.lhs + b.rhs, a.lhs + a.rhs))
        return all(self.eq(x, substitute(y, params)) for x, y in zip(a.result, b.result)) \
            and self.eq(a.identity_element, b.identity_element)

    def _bind(self, a, b) -> bool:
        if not self.map_free:
            return a is b
        fa, rb = self.vmap.get(id(a)), self.rmap.get(id(b))
        if fa is None and rb is None:
            self.vmap[id(a)] = b
            self.rmap[id(b)] = a
            return True
        return fa is b and rb is a


def _is_buffer(x) -> bool:
    return isinstance(x, Buffer)


def structural_equal(a, b, map_free_vars: bool = False) -> bool:
    """Whether ``a`` and ``b`` are the same tree of nodes with equal fields. Vars compare by
    identity unless ``map_free_vars``: then they (and buffers) may differ if a consistent
    one-to-one renaming makes the trees equal."""
    return _Equal(map_free_vars).eq(a, b)


def assert_structural_equal(a, b, map_free_vars: bool = True):
    """Raise AssertionError showing both scripts when ``a`` and ``b`` differ structurally."""
    if not structural_equal(a, b, map_free_vars):
        raise AssertionError(
            "IR differs structurally\n--- left ---\n" + to_script(a) +
            "\n--- right ---\n" + to_script(b))


__all__ = ["structural_equal", "structural_hash", "assert_structural_equal"]
