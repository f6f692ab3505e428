"""Pass objects (TVM's ``tvm.tir.transform``): ``prim_func_pass`` and the named passes.

    @tepad.tir.transform.prim_func_pass(opt_level=0)
    def drop_attr(func, mod, ctx): ...              # a user pass, TVM's signature

    tepad.tir.transform.InjectRollingBuffer()(func)  # tepad's pass under TVM's name

A pass object is called on a PrimFunc (or on anything with a ``functions`` mapping of names
to PrimFuncs, such as an IRModule, rewriting each function). The named passes are the ones
whose files register them here under TVM's names (``@register_pass("Simplify")`` on the pass
function, in ``tepad.lower.passes.<name>``); this module sits below them and never imports
them.
"""
from __future__ import annotations

import inspect

from ..errors import TepadError
from .function import PrimFunc
from .module import IRModule, accepts_module

_REGISTRY: dict = {}
_PASSES: dict = {}      # TVM name -> the tepad pass function registered under it

# The current PassContext's config and instruments: tepad.lower.pass_context (above this
# module) installs the providers when it is imported.
_context = {"config": dict, "instruments": list}

HOOKS = ("enter_pass_ctx", "exit_pass_ctx", "should_run", "run_before_pass", "run_after_pass")


def set_context_provider(config, instruments):
    """Install ``config() -> dict`` and ``instruments() -> list`` of the current context."""
    _context["config"], _context["instruments"] = config, instruments


def current_config() -> dict:
    """The config of the current PassContext (TVM passes read their options there)."""
    return _context["config"]()


def current_instruments() -> list:
    """The instruments of the current PassContext."""
    return _context["instruments"]()


class PassInfo:
    """What an instrument is told about a pass: ``name``, ``opt_level``, ``required``."""

    __slots__ = ("name", "opt_level", "required")

    def __init__(self, opt_level=0, name=None, required=None, traceable=False):
        # TVM's order is (opt_level, name, required); tepad's own calls give the name first
        if isinstance(opt_level, str):
            opt_level, name = (0 if name is None else name), opt_level
        if name is None:
            raise TepadError("PassInfo needs a name: PassInfo(opt_level, name)")
        self.name, self.opt_level, self.required = str(name), opt_level, list(required or [])

    def __repr__(self):
        return f"PassInfo(name={self.name!r}, opt_level={self.opt_level})"


def _call(inst, hook, *args, default=None):
    fn = getattr(inst, hook, None)
    return fn(*args) if callable(fn) else default


def as_module(func) -> IRModule:
    """What an instrument sees: an IRModule (a PrimFunc is wrapped under its name)."""
    return IRModule({func.name: func}) if isinstance(func, PrimFunc) else func


def should_run(instruments, mod, info) -> bool:
    """Whether every instrument lets the pass run (each is asked, as TVM asks all)."""
    answers = [_call(i, "should_run", mod, info, default=True) for i in instruments]
    return all(a is None or bool(a) for a in answers)


def before(instruments, mod, info):
    for i in instruments:
        _call(i, "run_before_pass", mod, info)


def after(instruments, mod, info):
    for i in instruments:
        _call(i, "run_after_pass", mod, info)


def enter(instruments):
    for i in instruments:
        _call(i, "enter_pass_ctx")


def exit_(instruments):
    for i in instruments:
        _call(i, "exit_pass_ctx")


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
        instruments = current_instruments()
        if not instruments:
            return self._apply(mod_or_func, ctx)
        info = PassInfo(self.name, self.opt_level, self.required)
        if not should_run(instruments, as_module(mod_or_func), info):
            return mod_or_func
        before(instruments, as_module(mod_or_func), info)
        out = self._apply(mod_or_func, ctx)
        after(instruments, as_module(out), info)
        return out

    def _apply(self, mod_or_func, ctx):
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


def prim_func_pass(pass_func=None, opt_level=0, name=None, required=None, traceable=False):
    """``PrimFuncPass`` from a function (``traceable``, MetaSchedule tracing, is accepted and
    unused); usable as ``@prim_func_pass(opt_level=0)`` or
    ``prim_func_pass(fn, opt_level=0)``."""
    def wrap(fn):
        return PrimFuncPass(fn, opt_level, name, required)
    return wrap(pass_func) if pass_func is not None else wrap


class Sequential:
    """Passes run one after another (TVM's ``tvm.transform.Sequential``): called on a module
    or function, it gives what the last pass returned."""

    def __init__(self, passes=None, opt_level=0, name="sequential", required=None,
                 traceable=False):
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


def Apply(ftransform):
    """A pass applying ``ftransform(func) -> PrimFunc`` to every function of a module (TVM's
    ``tir.transform.Apply``)."""
    if not callable(ftransform):
        raise TepadError(f"tir.transform.Apply takes a function of a PrimFunc, got "
                         f"{ftransform!r}")
    return PrimFuncPass(lambda f: ftransform(f), name="tir.Apply")


def Filter(fcond):
    """A pass keeping the functions of a module for which ``fcond(func)`` is true (TVM's
    ``tir.transform.Filter``); on a lone PrimFunc it gives the function or None."""
    if not callable(fcond):
        raise TepadError(f"tir.transform.Filter takes a predicate of a PrimFunc, got "
                         f"{fcond!r}")

    class _Filter(PrimFuncPass):
        def _apply(self, mod_or_func, ctx):
            if isinstance(mod_or_func, PrimFunc):
                return mod_or_func if fcond(mod_or_func) else None
            functions = getattr(mod_or_func, "functions", None)
            if functions is None:
                raise TepadError("tir.transform.Filter runs on an IRModule or a PrimFunc, got "
                                 f"{type(mod_or_func).__name__}")
            return type(mod_or_func)({k: f for k, f in functions.items() if fcond(f)})
    return _Filter(lambda f: f, name="tir.Filter")


_FACTORIES: dict = {}


def register(tvm_name: str, fn, factory=None) -> None:
    """Make ``tepad.tir.transform.<tvm_name>(*args)`` a pass object running ``fn(func,
    *args)``, or, with ``factory``, the function ``factory(*args, **kwargs)`` returns (for
    passes whose TVM arguments differ from tepad's)."""
    _REGISTRY[tvm_name] = fn
    if factory is not None:
        _FACTORIES[tvm_name] = factory


def register_pass(*tvm_names, run=None, factories=None):
    """Decorator for a tepad pass ``fn(PrimFunc, ...) -> PrimFunc``, in the pass's own file:
    gives ``fn`` made to take an IRModule too (``tir.module.accepts_module``), registered
    under each of ``tvm_names`` (``tepad.tir.transform.<name>(*args)`` then makes a pass
    object running it, see ``register``). ``run``: the function such a pass object runs
    instead (one reading the pass's options from the PassContext); ``factories``: ``{name:
    factory}`` for names whose TVM arguments differ from the function's (see ``register``)."""
    factories = dict(factories or {})
    unknown = set(factories) - set(tvm_names)
    if unknown:
        raise TepadError(f"register_pass: factories for names not registered: {sorted(unknown)}")

    def decorate(fn):
        fn = accepts_module(fn)
        for name in tvm_names:
            _PASSES[name] = fn
            register(name, run or fn, factories.get(name))
        return fn
    return decorate


def registered() -> dict:
    return dict(_REGISTRY)


def pass_functions() -> dict:
    """``{TVM name: tepad pass function}`` of every pass registered with ``register_pass``,
    in registration order."""
    return dict(_PASSES)


def __getattr__(name):
    fn = _REGISTRY.get(name)
    if fn is None:
        raise AttributeError(f"tepad.tir.transform has no pass {name!r}; passes: "
                             f"{', '.join(sorted(_REGISTRY))}")

    def make(*args, **kwargs):
        factory = _FACTORIES.get(name)
        if factory is not None:
            run = factory(*args, **kwargs)
            return PrimFuncPass(lambda f: run(f), name=f"tir.{name}")
        return PrimFuncPass(lambda f: fn(f, *args, **kwargs), name=f"tir.{name}")
    make.__name__ = name
    return make


__all__ = ["PrimFuncPass", "prim_func_pass", "Sequential", "Apply", "Filter", "PassInfo", "register",
           "register_pass", "registered", "pass_functions", "current_config", "current_instruments", "set_context_provider"]
