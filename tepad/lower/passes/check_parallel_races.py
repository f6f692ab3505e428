"""check_parallel_races: a CPU parallel loop whose iterations all update the same element is
refused before code generation.

TVM lets ``Stage.parallel`` mark a reduction axis and lowers it as written: ``lower`` shows
``for k in T.parallel(n): B[i] = B[i] + A[i, k]``, and the built code has every thread read,
add and write ``B[i]`` at once. tepad lowers it the same way (so the IR can be printed) and
refuses to build it. The check: inside a ``parallel`` loop over ``v``, a store
``X[idx] = f(..., X[idx], ...)`` (a read-modify-write of the same element) whose index
depends neither on ``v`` nor on anything derived from it (lets, loops whose bounds use it),
into a buffer not allocated inside the loop, is a data race. Other stores are not judged.
"""
from __future__ import annotations

from ...errors import TepadError
from ...tir import stmt as S
from ...tir.expr import BufferLoad
from ...tir.function import PrimFunc
from ...tir.functor import Visitor, post_order_visit, uses_var
from ...tir.structural import structural_equal


class _Loop(Visitor):
    """The stores of one parallel loop's body, knowing what depends on its variable."""

    def __init__(self, func_name, loop):
        self.func_name = func_name
        self.loop = loop
        self.dep = {loop.loop_var}
        self.inner = set()               # buffer vars allocated inside the loop

    def visit_LetStmt(self, s):
        if uses_var(s.value, self.dep):
            self.dep.add(s.var)
        self.generic_visit(s)

    def visit_For(self, s):
        if uses_var(s.min, self.dep) or uses_var(s.extent, self.dep):
            self.dep.add(s.loop_var)
        self.generic_visit(s)

    def visit_Allocate(self, s):
        self.inner.add(s.buffer_var)
        self.generic_visit(s)

    def visit_BufferStore(self, s):
        data = s.buffer.data
        if data not in self.inner and not any(uses_var(i, self.dep) for i in s.indices) and \
                _reads_same(s):
            name = s.buffer.name
            raise TepadError(
                f"{self.func_name}: parallel loop {self.loop.loop_var.name} updates "
                f"{name}[{', '.join(str(i) for i in s.indices)}] in every iteration: the "
                "threads race on it (a parallel reduction axis?); parallelize a data-parallel "
                "axis, or rfactor the reduction and parallelize the factored axis")
        self.generic_visit(s)


def _reads_same(store) -> bool:
    hit = []

    def f(n):
        if isinstance(n, BufferLoad) and n.buffer.data is store.buffer.data and \
                len(n.indices) == len(store.indices) and \
                all(structural_equal(a, b) for a, b in zip(n.indices, store.indices)):
            hit.append(n)
    post_order_visit(store.value, f)
    return bool(hit)


def check_parallel_races(func: PrimFunc) -> PrimFunc:
    """``func`` unchanged; a TepadError for a parallel loop that races (module docstring)."""
    def f(n):
        if isinstance(n, S.For) and n.kind == S.ForKind.PARALLEL:
            _Loop(func.name, n).visit(n.body)
    post_order_visit(func.body, f)
    return func


__all__ = ["check_parallel_races"]
