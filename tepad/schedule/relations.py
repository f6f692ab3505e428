"""IterVar relations of a stage (the hyper-graph InferBound and ScheduleOps walk).

Each relation records how leaf loops derive from root axes: ``Split`` (parent -> outer,
inner), ``Fuse`` (outer, inner -> fused), ``Rebase`` (parent -> rebased, from normalize) and
``Singleton`` (a unit loop, from ``fuse()`` of nothing).
"""
from __future__ import annotations


class Relation:
    """Base of the IterVar relations a Stage records (Split, Fuse, Rebase, Singleton,
    Transform): how leaf IterVars derive from the root ones."""

    def inputs(self):
        raise NotImplementedError

    def outputs(self):
        raise NotImplementedError


class Split(Relation):
    """``parent = outer * factor + inner`` (``Stage.split``); ``nparts`` fixes the outer
    extent instead of the inner one."""

    def __init__(self, parent, outer, inner, factor=None, nparts=None,
                 disable_predication=False, tail="guard"):
        self.parent, self.outer, self.inner = parent, outer, inner
        self.factor, self.nparts = factor, nparts
        # TVM's flag; tepad keeps the guard of a split that may not divide (Stage.split)
        self.disable_predication = disable_predication
        # "guard" or "shift" (the last tile moved inward where legal; Stage.split)
        self.tail = tail

    def inputs(self):
        return [self.parent]

    def outputs(self):
        return [self.outer, self.inner]

    def __repr__(self):
        how = f"factor={self.factor!r}" if self.factor is not None else f"nparts={self.nparts!r}"
        if self.tail != "guard":
            how += f", tail={self.tail!r}"
        return f"split({self.parent.name} -> {self.outer.name}, {self.inner.name}, {how})"


class Fuse(Relation):
    """``fused`` runs over ``outer`` x ``inner`` (``Stage.fuse``), with
    ``outer = fused // n`` and ``inner = fused % n`` for ``n`` the extent of ``inner``."""

    def __init__(self, outer, inner, fused):
        self.outer, self.inner, self.fused = outer, inner, fused

    def inputs(self):
        return [self.outer, self.inner]

    def outputs(self):
        return [self.fused]

    def __repr__(self):
        return f"fuse({self.outer.name}, {self.inner.name} -> {self.fused.name})"


class Rebase(Relation):
    """``rebased`` is ``parent`` shifted to start at 0 (added when lowering normalizes a
    schedule)."""

    def __init__(self, parent, rebased):
        self.parent, self.rebased = parent, rebased

    def inputs(self):
        return [self.parent]

    def outputs(self):
        return [self.rebased]

    def __repr__(self):
        return f"rebase({self.parent.name} -> {self.rebased.name})"


class Singleton(Relation):
    """A new unit-extent loop ``iter`` (``Stage.fuse()`` with no axes)."""

    def __init__(self, iter_var):
        self.iter = iter_var

    def inputs(self):
        return []

    def outputs(self):
        return [self.iter]

    def __repr__(self):
        return f"singleton({self.iter.name})"


class Transform(Relation):
    """A layout transform of a compute stage (RFC 0039): the loops iterate the transformed
    axes; ``inverse[k]`` gives original axis k in terms of the transformed vars."""

    def __init__(self, original_vars, transformed_vars, index_map, inverse):
        self.original_vars = list(original_vars)
        self.transformed_vars = list(transformed_vars)
        self.index_map = index_map
        self.inverse = list(inverse)

    def inputs(self):
        return list(self.original_vars)

    def outputs(self):
        return list(self.transformed_vars)

    def __repr__(self):
        return (f"transform({', '.join(v.name for v in self.original_vars)} -> "
                f"{', '.join(v.name for v in self.transformed_vars)}: {self.index_map})")
