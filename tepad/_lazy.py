"""Third-party modules loaded on first use, so that ``import tepad`` stays cheap.

``nx = lazy_module("networkx")`` at module level stands for ``import networkx as nx``: the
name is bound at once (a module-level statement, visible to ``tests/test_layering.py``), but
networkx is imported the first time an attribute of ``nx`` is read. ``on_load(module)`` runs
once, right after the first stand-in for that name loads it (at once if one already has):
module-wide settings such as ISL's AST options, or symbols the JIT must see (several modules
hold stand-ins for llvmlite.binding; a hook runs whichever of them is used first).
``lazy_attr(mod, "name")`` stands for ``mod.name`` read at module level.

Only for what a few code paths use: heavy dependencies (networkx: building a schedule; islpy:
exact bounds, layouts, explain; llvmlite.binding: building, and host-CPU queries of a
Target), and tepad's own modules that only some calls need (the LLVM IR emitter: the first
build; the CUDA build paths; exact bounds): ``lazy_module("tepad.x.y")`` with the full name, so
tests/test_layering.py sees the edge. Everything else is imported normally.
"""
from __future__ import annotations

import importlib
import threading
import types

_lock = threading.RLock()
_loaded: dict = {}      # name -> module, once a stand-in has loaded it
_pending: dict = {}     # name -> on_load hooks not run yet


class LazyModule(types.ModuleType):
    """A stand-in for the module ``name``; attribute reads go to the real module, imported on
    the first one."""

    def __init__(self, name: str, on_load=None):
        super().__init__(name)
        self.__dict__["_lazy_name"] = name
        self.__dict__["_lazy_module"] = None
        if on_load is not None:
            with _lock:
                if name in _loaded:
                    on_load(_loaded[name])
                else:
                    _pending.setdefault(name, []).append(on_load)

    def _lazy_load(self):
        mod = self.__dict__["_lazy_module"]
        if mod is None:
            with _lock:
                mod = self.__dict__["_lazy_module"]
                if mod is None:
                    name = self.__dict__["_lazy_name"]
                    mod = _loaded.get(name) or importlib.import_module(name)
                    for hook in _pending.pop(name, ()):
                        hook(mod)
                    _loaded[name] = mod
                    self.__dict__["_lazy_module"] = mod
        return mod

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return getattr(self._lazy_load(), attr)

    def __dir__(self):
        return dir(self._lazy_load())

    def __repr__(self):
        state = "loaded" if self.__dict__["_lazy_module"] is not None else "not loaded yet"
        return f"<lazy module {self.__dict__['_lazy_name']!r} ({state})>"


class LazyAttr:
    """``getattr(module, name)`` resolved on first use; attribute reads, calls, comparisons
    and hashing go to the resolved object."""

    __slots__ = ("_mod", "_name", "_obj")

    def __init__(self, module, name: str):
        object.__setattr__(self, "_mod", module)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_obj", None)

    def _resolve(self):
        obj = object.__getattribute__(self, "_obj")
        if obj is None:
            get = object.__getattribute__
            obj = getattr(get(self, "_mod"), get(self, "_name"))
            object.__setattr__(self, "_obj", obj)
        return obj

    def __getattr__(self, attr):
        return getattr(self._resolve(), attr)

    def __call__(self, *args, **kwargs):
        return self._resolve()(*args, **kwargs)

    def __eq__(self, other):
        return self._resolve() == other

    def __hash__(self):
        return hash(self._resolve())

    def __repr__(self):
        return f"<lazy {object.__getattribute__(self, '_name')}>"


def lazy_module(name: str, on_load=None) -> LazyModule:
    """A module-level stand-in for ``import name`` (see the module docstring)."""
    return LazyModule(name, on_load)


def lazy_attr(module, name: str) -> LazyAttr:
    """A module-level stand-in for ``module.name``, read on first use."""
    return LazyAttr(module, name)


def is_loaded(mod) -> bool:
    """Whether a ``lazy_module`` stand-in has imported its module (True for a real module)."""
    return not isinstance(mod, LazyModule) or mod.__dict__["_lazy_module"] is not None


__all__ = ["lazy_module", "lazy_attr", "LazyModule", "LazyAttr", "is_loaded"]
