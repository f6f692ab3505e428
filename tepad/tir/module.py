"""IRModule: named PrimFuncs (TVM's ``tvm.ir.IRModule``), what ``tepad.lower`` returns.

``mod["main"]`` is the function, ``print(mod)`` / ``mod.script()`` show it as TVMScript-like
text, and every pass of ``tepad.lower.passes`` takes a module as well as a function
(``accepts_module``), returning the same kind it was given."""
from __future__ import annotations

import functools

from ..errors import TepadError, warn_deprecated
from .function import PrimFunc


class GlobalVar:
    """The name of a function in an IRModule (``mod[GlobalVar("main")]`` is ``mod["main"]``)."""

    def __init__(self, name_hint: str, type_annot=None):
        if not isinstance(name_hint, str):
            raise TepadError(f"GlobalVar: the name must be a string, got {name_hint!r}")
        self.name_hint = name_hint

    def __eq__(self, other):
        return isinstance(other, GlobalVar) and other.name_hint == self.name_hint

    def __hash__(self):
        return hash(self.name_hint)

    def __repr__(self):
        return f"I.GlobalVar({self.name_hint!r})"


class IRModule:
    """An ordered mapping of names to PrimFuncs. Immutable by convention, like PrimFunc."""

    def same_as(self, other) -> bool:
        """TVM's ``Object.same_as``: ``other`` is this very object."""
        return self is other

    def __init__(self, functions=None):
        functions = dict(functions or {})
        for k, f in functions.items():
            if not isinstance(k, str) or not isinstance(f, PrimFunc):
                raise TepadError(f"IRModule maps names to PrimFuncs, got {k!r}: "
                                 f"{type(f).__name__}")
        self.functions = functions

    @staticmethod
    def from_expr(func: PrimFunc, name: str | None = None) -> "IRModule":
        return IRModule({name or func.name: func})

    @property
    def body(self):
        """TVM 0.6's ``lower(..., simple_mode=True)`` returned the lowered statement; on a
        module of one function this is that function's body (warns once)."""
        if len(self.functions) != 1:
            raise TepadError(f"IRModule.body: the module has {len(self.functions)} functions; "
                             "take one (mod['main'].body)")
        warn_deprecated("IRModule.body (the statement lower(simple_mode=True) returned in "
                        "TVM 0.6)", "mod['main'].body")
        return next(iter(self.functions.values())).body

    def __getitem__(self, name) -> PrimFunc:
        key = getattr(name, "name_hint", name)
        f = self.functions.get(key)
        if f is None:
            raise TepadError(f"IRModule has no function {key!r}; it has "
                             f"{', '.join(map(repr, self.functions)) or 'none'}")
        return f

    def __contains__(self, name):
        return getattr(name, "name_hint", name) in self.functions

    def __iter__(self):
        return iter(self.functions.items())

    def __len__(self):
        return len(self.functions)

    def items(self):
        return self.functions.items()

    def _move(self) -> "IRModule":
        """The module itself: TVM's ``_move`` hands a C++ object over without a copy; tepad's
        modules are immutable Python objects, so there is nothing to move."""
        return self

    def get_global_vars(self):
        return list(self.functions)

    def with_functions(self, functions) -> "IRModule":
        """This module with ``functions`` (a name -> PrimFunc mapping) in place of its own;
        the module itself when every function is the same object."""
        functions = dict(functions)
        if functions.keys() == self.functions.keys() and \
                all(functions[k] is self.functions[k] for k in functions):
            return self
        return IRModule(functions)

    def only_function(self, what="this") -> PrimFunc:
        """The module's single function (a TepadError when it has several or none)."""
        if len(self.functions) != 1:
            raise TepadError(f"{what} takes a module with one function; this one has "
                             f"{', '.join(map(repr, self.functions)) or 'none'}")
        return next(iter(self.functions.values()))

    def script(self) -> str:
        body = "\n\n".join("\n".join("    " + ln if ln else ln for ln in f.script().split("\n"))
                           for f in self.functions.values())
        return "@I.ir_module\nclass Module:\n" + body

    __str__ = script

    def __repr__(self):
        return self.script()

    # --- TVM's other IRModule methods -----------------------------------------------------------
    def get_global_var(self, name: str) -> GlobalVar:
        """The GlobalVar naming function ``name``."""
        if name not in self.functions:
            raise TepadError(f"IRModule has no function {name!r}; it has "
                             f"{', '.join(map(repr, self.functions)) or 'none'}")
        return GlobalVar(name)

    def functions_items(self) -> list:
        """``[(GlobalVar, PrimFunc)]`` of the module's functions."""
        return [(GlobalVar(k), f) for k, f in self.functions.items()]

    def update_func(self, var, func: PrimFunc) -> None:
        """Put ``func`` under ``var`` (a GlobalVar or a name), in place, as TVM does."""
        if not isinstance(func, PrimFunc):
            raise TepadError(f"IRModule.update_func: expected a PrimFunc, got "
                             f"{type(func).__name__}")
        self.functions[getattr(var, "name_hint", var)] = func

    def update(self, other) -> None:
        """Add (or replace) the functions of ``other`` (an IRModule or a name -> PrimFunc
        mapping), in place."""
        for k, f in (other.functions if isinstance(other, IRModule) else dict(other)).items():
            self.update_func(k, f)

    @property
    def attrs(self) -> dict:
        """The module's attributes (``with_attr``)."""
        return self.__dict__.setdefault("_attrs", {})

    def get_attr(self, attr_key, default=None):
        return self.attrs.get(attr_key, default)

    def with_attrs(self, attr_map) -> "IRModule":
        """A copy of the module with the attributes of ``attr_map`` added."""
        out = self.clone()
        out.attrs.update(dict(attr_map))
        return out

    def with_attr(self, attr_key, attr_value) -> "IRModule":
        """A copy of the module with the attribute ``attr_key`` set."""
        return self.with_attrs({attr_key: attr_value})

    def without_attr(self, attr_key) -> "IRModule":
        """A copy of the module without the attribute ``attr_key``."""
        out = self.clone()
        out.attrs.pop(attr_key, None)
        return out

    def clone(self) -> "IRModule":
        """A new module holding the same functions and attributes."""
        out = IRModule(dict(self.functions))
        out.attrs.update(self.attrs)
        return out

    def astext(self, show_meta_data=True) -> str:
        """The module as TVMScript-like text (``script()``)."""
        return self.script()

    def show(self) -> None:
        """Print the module's script."""
        print(self.script())


def accepts_module(fn):
    """``fn(PrimFunc, ...) -> PrimFunc`` that also takes an IRModule, rewriting each of its
    functions and returning a module."""
    @functools.wraps(fn)
    def wrapper(func, *args, **kwargs):
        if isinstance(func, IRModule):
            return func.with_functions({k: fn(f, *args, **kwargs) for k, f in func.items()})
        return fn(func, *args, **kwargs)
    return wrapper


__all__ = ["IRModule", "GlobalVar", "accepts_module"]
