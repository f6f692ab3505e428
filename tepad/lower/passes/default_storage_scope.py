"""default_storage_scope: the memory a GPU kernel's allocation lives in (TVM's StorageFlatten
rule for a realize without a storage scope).

Guarantees: every ``Allocate`` of a stage that set no scope (its buffers' ``scope`` is ``""``)
gets ``annotations["scope"]``: ``"local"`` (one copy per thread) when it sits under a
``threadIdx`` launch, ``"shared"`` (one copy per block) when it sits under ``blockIdx`` launches
only, ``"global"`` outside every launch; loads and stores of it use buffers with that scope.
Scopes the schedule gave (``cache_read(.., "shared")``, ``set_scope``) are kept. A function
without launches (a CPU function) is returned unchanged.
"""
from __future__ import annotations

from ...tir.function import PrimFunc
from ...tir.functor import Visitor
from ..gpu_kernel import RescopeBuffers, kernels
from ...tir.launch import is_launch, launch_tag
from ...tir.transform import register_pass


class _Decide(Visitor):
    def __init__(self):
        self.ranks = []           # enclosing launches: 0 block, 1 thread
        self.unset = set()        # data vars of buffers that carry no scope
        self.allocs = []          # (data var, scope by position)

    def visit_AttrStmt(self, n):
        if is_launch(n):
            self.ranks.append(1 if launch_tag(n).startswith("threadIdx") else 0)
            self.generic_visit(n)
            self.ranks.pop()
            return
        self.generic_visit(n)

    def visit_Allocate(self, n):
        scope = "global" if not self.ranks else "local" if max(self.ranks) == 1 else "shared"
        self.allocs.append((n.buffer_var, scope))
        self.generic_visit(n)

    def visit_BufferLoad(self, x):
        if x.buffer.scope == "":
            self.unset.add(x.buffer.data)
        self.generic_visit(x)

    def visit_BufferStore(self, s):
        if s.buffer.scope == "":
            self.unset.add(s.buffer.data)
        self.generic_visit(s)


@register_pass()
def default_storage_scope(func: PrimFunc) -> PrimFunc:
    """``func`` with TVM's default scopes on its unscoped allocations (see the module)."""
    if not kernels(func.body):
        return func                  # no GPU launch: nothing to decide (CPU functions)
    d = _Decide()
    d.visit(func.body)
    scopes = {v: scope for v, scope in d.allocs if v in d.unset}
    if not scopes:
        return func
    body = RescopeBuffers(scopes).visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["default_storage_scope"]
