"""Pass objects (TVM's ``tvm.tir.transform``): ``prim_func_pass`` and the named passes.

    @tepad.tir.transform.prim_func_pass(opt_level=0)
    def drop_attr(func, mod, ctx): ...              # a user pass, TVM's signature

    tepad.tir.transform.InjectRollingBuffer()(func)  # tepad's pass under TVM's name

A pass object is called on a PrimFunc (or on anything with a ``functions`` mapping of names
to PrimFuncs, such as an IRModule, rewriting each function). The named passes are the ones
``tepad.lower.passes`` registers here under TVM's names (``register``); this module sits
below them and never imports them.
"""
from __future__ import annotations

import inspect

from ..errors import TepadError
from .function import PrimFunc

_REGISTRY: dict = {}


class PrimFuncPass:
    """A pass over PrimFuncs. ``fn(func)`` or, TVM's form, ``fn(func, mod, ctx)``."""

    def __init__(self, fn, opt_level=0, name=None, required=None):
        self.fn = fn
        self.opt_level = opt_level
        self.name = name or getattr(fn, "__name__", "prim_func_pass")
        self.required = list(required or [])
        try:
            n_params = len(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            n_params = 1
        self._tvm_form = n_params >= 3

    def run(self, func: PrimFunc, mod=None, ctx=None) -> PrimFunc:
        out = self.fn(func, mod, ctx) if self._tvm_form else self.fn(func)
        if not isinstance(out, PrimFunc):
            raise TepadError(f"pass {self.name} returned {type(out).__name__}; a pass over "
                             "PrimFuncs must return a PrimFunc")
        return out

    def __call__(self, mod_or_func, ctx=None):
        if isinstance(mod_or_func, PrimFunc):
            return self.run(mod_or_func, None, ctx)
        functions = getattr(mod_or_func, "functions", None)
        if functions is None:
            raise TepadError(f"pass {self.name} runs on a PrimFunc or an IRModule, got "
                             f"{type(mod_or_func).__name__}")
        return mod_or_func.with_functions(
            {k: self.run(f, mod_or_func, ctx) for k, f in functions.items()})

    def __repr__(self):
        return f"PrimFuncPass({self.name}, opt_level={self.opt_level})"


def prim_func_pass(pass_func=None, opt_level=0, name=None, required=None):
    """``PrimFuncPass`` from a function; usable as ``@prim_func_pass(opt_level=0)`` or
    ``prim_func_pass(fn, opt_level=0)``."""
    def wrap(fn):
        return PrimFuncPass(fn, opt_level, name, required)
    return wrap(pass_func) if pass_func is not None else wrap


class Sequential:
    """Passes run one after another (TVM's ``tvm.transform.Sequential``): called on a module
    or function, it gives what the last pass returned."""

    def __init__(self, passes=None, opt_level=0, name="sequential", required=None):
        self.passes = list(passes or [])
        for p in self.passes:
            if not callable(p):
                raise TepadError(f"Sequential: {p!r} is not a pass (a pass object or a "
                                 "function of a PrimFunc)")
        self.opt_level, self.name, self.required = opt_level, name, list(required or [])

    def __call__(self, mod_or_func, ctx=None):
        for p in self.passes:
            mod_or_func = p(mod_or_func)
        return mod_or_func

    def __repr__(self):
        return f"Sequential({', '.join(getattr(p, 'name', repr(p)) for p in self.passes)})"


def Apply(ftransform) -> PrimFuncPass:  # noqa: N802 (TVM's name)
    """TVM's ``tir.transform.Apply``: a pass running ``ftransform(func) -> func`` on every
    PrimFunc of a module (or on one PrimFunc)."""
    if not callable(ftransform):
        raise TepadError(f"tir.transform.Apply takes a function PrimFunc -> PrimFunc, got "
                         f"{ftransform!r}")
    return PrimFuncPass(lambda f: ftransform(f), name="Apply")


def register(tvm_name: str, fn) -> None:
    """Make ``tepad.tir.transform.<tvm_name>()`` a pass object running ``fn``."""
    _REGISTRY[tvm_name] = fn


def registered() -> dict:
    return dict(_REGISTRY)


def __getattr__(name):
    fn = _REGISTRY.get(name)
    if fn is None:
        raise AttributeError(f"tepad.tir.transform has no pass {name!r}; passes: "
                             f"{', '.join(sorted(_REGISTRY))}")

    def make(*args, **kwargs):
        if args or kwargs:
            return PrimFuncPass(lambda f: fn(f, *args, **kwargs), name=name)
        # registered passes take the function alone, whatever their optional parameters
        # (PrimFuncPass would read three parameters as TVM's (func, mod, ctx) form)
        return PrimFuncPass(lambda f: fn(f), name=name)
    make.__name__ = name
    return make


__all__ = ["PrimFuncPass", "prim_func_pass", "Sequential", "register", "registered", "Apply"]
