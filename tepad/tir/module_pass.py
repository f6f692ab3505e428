"""TVM's module-level pass names (``tvm.ir.transform`` / ``tvm.transform``): the ``Pass``
base (``PrimFuncPass`` and ``Sequential`` are registered with it), ``ModulePass`` /
``module_pass`` (a function of the whole IRModule) and ``PrintIR``."""
from __future__ import annotations

import abc
import inspect

from ..errors import TepadError
from .function import PrimFunc
from .module import IRModule
from .transform import (PassInfo, PrimFuncPass, Sequential, after, before, current_instruments,
                        should_run)


class Pass(abc.ABC):
    """TVM's base of every pass; ``PrimFuncPass``, ``Sequential`` and ``ModulePass`` are
    passes (``isinstance(p, tvm.transform.Pass)``)."""


Pass.register(PrimFuncPass)
Pass.register(Sequential)


class ModulePass:
    """A pass over a whole IRModule: ``fn(mod)`` or TVM's ``fn(mod, ctx)`` returns the new
    IRModule. Instruments of the current PassContext see it like every pass."""

    def __init__(self, fn, opt_level=0, name=None, required=None):
        self.fn = fn
        self.opt_level = opt_level
        self.name = name or getattr(fn, "__name__", "module_pass")
        self.required = list(required or [])
        try:
            self._tvm_form = len(inspect.signature(fn).parameters) >= 2
        except (TypeError, ValueError):
            self._tvm_form = False

    @property
    def info(self) -> PassInfo:
        return PassInfo(self.name, self.opt_level, self.required)

    def _apply(self, mod):
        if isinstance(mod, PrimFunc):
            mod = IRModule({mod.name: mod})
        if not isinstance(mod, IRModule):
            raise TepadError(f"module pass {self.name} runs on an IRModule, got "
                             f"{type(mod).__name__}")
        out = self.fn(mod, None) if self._tvm_form else self.fn(mod)
        if not isinstance(out, IRModule):
            raise TepadError(f"module pass {self.name} returned {type(out).__name__}; it "
                             "must return an IRModule")
        return out

    def __call__(self, mod, ctx=None):
        instruments = current_instruments()
        if not instruments:
            return self._apply(mod)
        if not should_run(instruments, mod, self.info):
            return mod
        before(instruments, mod, self.info)
        out = self._apply(mod)
        after(instruments, out, self.info)
        return out

    def __repr__(self):
        return f"ModulePass({self.name}, opt_level={self.opt_level})"


Pass.register(ModulePass)


def module_pass(pass_func=None, opt_level=0, name=None, required=None, traceable=False):
    """A ``ModulePass`` from a function (or a class whose instances have
    ``transform_module(mod, ctx)``); usable as a decorator with or without arguments."""
    def wrap(fn):
        if inspect.isclass(fn):
            inst_name = name or fn.__name__

            def make(*args, **kwargs):
                inst = fn(*args, **kwargs)
                return ModulePass(lambda mod, ctx: inst.transform_module(mod, ctx), opt_level,
                                  inst_name, required)
            return make
        return ModulePass(fn, opt_level, name, required)
    return wrap(pass_func) if pass_func is not None else wrap


def PrintIR(header: str = "", show_meta_data: bool = False) -> ModulePass:  # noqa: N802
    """A pass that prints the module (after ``header``) and returns it unchanged."""
    def print_ir(mod):
        print(f"PrintIR({header}):\n{mod}")
        return mod
    return ModulePass(print_ir, 0, "PrintIR")


__all__ = ["Pass", "ModulePass", "module_pass", "PrintIR"]
