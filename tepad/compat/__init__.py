"""TVM's older names (TVM 0.6 to 0.8), kept working as TVM kept them: as deprecated aliases.

``import tepad as tvm`` resolves a name of the older top-level API (``tvm.placeholder``,
``tvm.create_schedule``, ``tvm.decl_buffer``, ``tvm.exp``, ...) and the older modules
(``tvm.api``, ``tvm.expr``, ``tvm.stmt``, ``tvm.make``, ``tvm.ir_pass``, ``tvm.intrin``,
``tvm.ndarray``, ``tvm.build_module``, ``tvm.module``, ``tvm.codegen``) through this package:
the first use of each old name warns once with a ``DeprecationWarning`` naming its current
spelling (``tepad.errors.warn_deprecated``), then works as that name. The tables of names are
in ``aliases``; the few old calls whose arguments differ from the new ones are adapted in
``legacy``."""
from __future__ import annotations

import importlib
import sys
import types

from ..errors import TepadAttributeError, warn_deprecated
from .aliases import MODULES, TOP_LEVEL


def resolve(path: str):
    """The object at the dotted ``path`` (``"tepad.te.placeholder"``): the longest importable
    module prefix, then attributes."""
    parts = path.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for p in parts[k:]:
            obj = getattr(obj, p)
        return obj
    raise ImportError(path)


class AliasModule(types.ModuleType):
    """A module of old names: attribute ``x`` is ``table[x] = (tepad path, new TVM name)``,
    resolved on use after a one-time DeprecationWarning."""

    def __init__(self, name: str, old: str, table: dict, doc: str = ""):
        super().__init__(name, doc or f"TVM's older module {old} (deprecated aliases).")
        self._old = old
        self._table = table

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        entry = self._table.get(attr)
        if entry is None:
            raise TepadAttributeError(
                f"{self._old}.{attr}: TVM's older module {self._old} has no such name in "
                f"tepad; it holds {', '.join(sorted(self._table))} (docs/coming_from_tvm.md)")
        path, new = entry
        warn_deprecated(f"{self._old}.{attr}", new)
        return resolve(path)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._table))


_MODULE_CACHE: dict = {}


def old_module(name: str) -> AliasModule:
    """The alias module ``tepad.<name>`` (``"api"``, ``"expr"``, ...), made once and put in
    ``sys.modules`` so ``from tepad.api import placeholder`` works too."""
    mod = _MODULE_CACHE.get(name)
    if mod is None:
        table, doc = MODULES[name]
        mod = AliasModule(f"tepad.{name}", f"tvm.{name}", table, doc)
        _MODULE_CACHE[name] = mod
        sys.modules.setdefault(f"tepad.{name}", mod)
    return mod


def top_level(name: str):
    """What ``tepad.<name>`` is when ``name`` is an old top-level name or module; raises
    AttributeError when it is neither."""
    if name in MODULES:
        return old_module(name)
    entry = TOP_LEVEL.get(name)
    if entry is None:
        raise AttributeError(f"module 'tepad' has no attribute {name!r}")
    path, new = entry
    warn_deprecated(f"tvm.{name}", new, stacklevel=4)
    return resolve(path)


def old_names() -> list:
    """Every old top-level name and module this package answers for."""
    return sorted(set(TOP_LEVEL) | set(MODULES))


__all__ = ["AliasModule", "old_module", "top_level", "old_names", "resolve", "MODULES",
           "TOP_LEVEL"]
