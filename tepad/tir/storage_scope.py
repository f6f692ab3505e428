"""Storage scope names (TVM's ``runtime::StorageScope``): a rank and an optional tag.

A scope is ``""`` (global), or one of the ranks ``global``, ``shared``, ``warp``, ``local``
followed by a tag that TVM keeps for special-purpose memories (``"global.texture"``,
``"global:my_pool"``, ``"shared.dyn"``, ``"local.xyz"``). tepad keeps the full name in the
IR (buffers, ``Allocate`` annotations, printouts) and treats a tagged scope as its rank
wherever memory placement is decided.
"""
from __future__ import annotations

from ..errors import TepadError

#: the storage ranks, from the widest (one copy for everyone) to the narrowest (per thread)
RANKS = ("global", "shared", "warp", "local")


def split_storage_scope(scope: str, what: str = "storage scope") -> tuple:
    """``(rank, tag)`` of ``scope``: ``"global:pool"`` -> ``("global", ":pool")``, ``""`` ->
    ``("global", "")``. A name starting with no rank is a TepadError naming ``what``."""
    if not isinstance(scope, str):
        raise TepadError(f"{what}: a storage scope is a string, got {type(scope).__name__}")
    if scope == "":
        return "global", ""
    for rank in RANKS:
        if scope.startswith(rank):
            return rank, scope[len(rank):]
    raise TepadError(f"{what}: unknown storage scope {scope!r}; valid: 'global', 'shared', "
                     "'warp', 'local', each optionally followed by a tag ('global.texture', "
                     "'global:pool', 'shared.dyn')")


def storage_rank(scope: str) -> str:
    """The rank of ``scope`` ("global" for ``""``; unknown names are returned unchanged)."""
    if not isinstance(scope, str):
        return scope
    for rank in RANKS:
        if scope.startswith(rank):
            return rank
    return "global" if scope == "" else scope


__all__ = ["RANKS", "split_storage_scope", "storage_rank"]
