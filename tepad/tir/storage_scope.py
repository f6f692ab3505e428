"""Storage scope names (TVM's ``runtime::StorageScope``): a rank and an optional tag.

A scope is ``""`` (global), or one of the ranks ``global``, ``shared``, ``warp``, ``local``
followed by a tag that TVM keeps for special-purpose memories (``"global.texture"``,
``"global:my_pool"``, ``"shared.dyn"``, ``"local.xyz"``). tepad keeps the full name in the
IR (buffers, ``Allocate`` annotations, printouts) and treats a tagged scope as its rank
wherever memory placement is decided.

The tensor-core fragment scopes ``wmma.matrix_a``, ``wmma.matrix_b`` and ``wmma.accumulator``
hold one fragment per warp (each thread its share of it). TVM ranks them above ``local``
(ranks 4-6); what their rank decides (InferBound's relaxation over thread indices, whether a
thread index enters a stage's own indices, where an allocation lives) is decided for them as
for ``local``: one copy per thread of every rank, so ``storage_rank`` gives ``"local"``.
"""
from __future__ import annotations

from ..errors import TepadError

#: the storage ranks, from the widest (one copy for everyone) to the narrowest (per thread)
RANKS = ("global", "shared", "warp", "local")
#: tensor-core fragment scopes (TVM's kWMMAMatrixA / B / Accumulator), placed as ``local``
FRAGMENT_SCOPES = ("wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator")


def split_storage_scope(scope: str, what: str = "storage scope") -> tuple:
    """``(rank, tag)`` of ``scope``: ``"global:pool"`` -> ``("global", ":pool")``, ``""`` ->
    ``("global", "")``, a fragment scope -> ``("local", scope)``. A name starting with no rank is a TepadError naming ``what``."""
    if not isinstance(scope, str):
        raise TepadError(f"{what}: a storage scope is a string, got {type(scope).__name__}")
    if scope == "":
        return "global", ""
    if scope in FRAGMENT_SCOPES:
        return "local", scope
    for rank in RANKS:
        if scope.startswith(rank):
            return rank, scope[len(rank):]
    raise TepadError(f"{what}: unknown storage scope {scope!r}; valid: 'global', 'shared', "
                     "'warp', 'local', each optionally followed by a tag ('global.texture', "
                     "'global:pool', 'shared.dyn'), and the tensor-core fragments "
                     "'wmma.matrix_a', 'wmma.matrix_b', 'wmma.accumulator'")


def storage_rank(scope: str) -> str:
    """The rank of ``scope`` ("global" for ``""``, "local" for a fragment scope; unknown names
    are returned unchanged)."""
    if not isinstance(scope, str):
        return scope
    if scope in FRAGMENT_SCOPES:
        return "local"
    for rank in RANKS:
        if scope.startswith(rank):
            return rank
    return "global" if scope == "" else scope


__all__ = ["RANKS", "FRAGMENT_SCOPES", "split_storage_scope", "storage_rank"]
