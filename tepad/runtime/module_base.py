"""``ModuleBase``: TVM's ``runtime.Module`` protocol, written once for every module tepad makes
(the CPU ``Module``, ``ModuleGroup``, ``CudaModule`` and its ``DeviceSourceModule``, the
emulator's modules).

A module has a ``type_key`` (``"llvm"``, ``"cuda_host"``, ``"cuda"``), ``imported_modules``
(the device part of a host module), ``get_source(fmt)``, and one entry function
``entry_name``: ``mod[name]`` / ``get_function(name)`` give the module itself for that name or
TVM's ``"__tvm_main__"``, a TepadError naming the function it has otherwise. A module that
holds several functions (``ModuleGroup``) overrides ``get_function``.
"""
from __future__ import annotations

from ..errors import TepadAttributeError, TepadTypeError

# TVM's name for a module's main function (``mod.entry_name``); accepted by ``mod[...]``
TVM_MAIN = "__tvm_main__"


class ModuleBase:
    """TVM's module face; subclasses give ``type_key``, ``get_source`` and a ``name`` (the
    entry function's)."""

    type_key = ""

    @property
    def entry_name(self) -> str:
        """The name of the function ``mod(...)`` runs (the kernel symbol, ``name=`` of build)."""
        return self.name

    @property
    def imported_modules(self) -> list:
        return []

    @property
    def entry_func(self):
        """The module's entry function (TVM's ``entry_func``): the module itself, callable."""
        return self.get_function(self.entry_name)

    @property
    def format(self) -> str:
        """The module's format: ``"so"`` (a host shared object once exported)."""
        return "so"

    def implements_function(self, name: str, query_imports: bool = False) -> bool:
        """Whether ``mod[name]`` is a function of this module."""
        try:
            self.get_function(name)
        except (AttributeError, TypeError):
            return False
        return True

    def get_function(self, name: str, query_imports: bool = False):
        """The function ``name``: the module's one kernel (``mod.entry_name``, or TVM's
        ``"__tvm_main__"``), callable as the module is."""
        if not isinstance(name, str):
            raise TepadTypeError(f"function name must be a string, got {type(name).__name__}")
        if name not in (self.entry_name, TVM_MAIN):
            raise TepadAttributeError(f"Module has no function {name!r}; its one function is "
                                      f"{self.entry_name!r} (mod.entry_name)")
        return self

    def __getitem__(self, name: str):
        return self.get_function(name)

    def get_source(self, fmt: str = "") -> str:
        raise NotImplementedError


__all__ = ["ModuleBase", "TVM_MAIN"]
