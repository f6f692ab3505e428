"""``ModuleGroup``: what ``tepad.build`` returns for several PrimFuncs at once (TVM's one
runtime module holding several functions): ``mod["name"]`` is each function's ``Module``."""
from __future__ import annotations

from ..errors import TepadAttributeError, TepadError, TepadTypeError
from .module_base import ModuleBase


class ModuleGroup(ModuleBase):
    """Several compiled kernels under their names (each a ``Module``, compiled separately).

    ``mod[name]`` / ``mod.get_function(name)``: the kernel ``name``; ``mod.get_source(fmt)``:
    the text of every kernel, in alphabetical order of their names; calling the group runs
    its entry (``entry_name``: ``main`` when there is one, else the first name in order)."""

    def __init__(self, modules: dict):
        if not modules:
            raise TepadError("build: no functions to build")
        self.modules = dict(sorted(modules.items()))
        self.name = "main" if "main" in self.modules else next(iter(self.modules))

    def get_function(self, name: str, query_imports: bool = False):
        if not isinstance(name, str):
            raise TepadTypeError(f"function name must be a string, got {type(name).__name__}")
        m = self.modules.get(name)
        if m is None:
            raise TepadAttributeError(f"Module has no function {name!r}; its functions are "
                                      f"{', '.join(map(repr, self.modules))}")
        return m

    def __contains__(self, name):
        return name in self.modules

    def __call__(self, *args):
        return self.modules[self.entry_name](*args)

    type_key = "llvm"

    def get_source(self, fmt: str = "") -> str:
        return "\n".join(m.get_source(fmt) for m in self.modules.values())

    def time_evaluator(self, func_name=None, dev=None, **kw):
        return self.get_function(func_name or self.entry_name).time_evaluator(None, dev, **kw)

    def __repr__(self):
        return f"<tepad.runtime.ModuleGroup {', '.join(self.modules)}>"


__all__ = ["ModuleGroup"]
