"""TVM's generic functions (``tvm.target.generic_func``): one Python function with
per-target-key specializations, chosen at call time by the keys of ``Target.current()``
(``["cpu"]`` for llvm, ``["cuda", "gpu"]`` for cuda, ...). Operator libraries of the TE era
write their schedule dispatch this way::

    @tvm.target.generic_func
    def schedule_my_op(outs):            # the default
        return te.create_schedule([x.op for x in outs])

    @schedule_my_op.register(["cuda", "gpu"])
    def _(outs): ...

    with tvm.target.Target("cuda"):
        s = schedule_my_op(outs)          # the cuda specialization
"""
from __future__ import annotations

import functools

from ..errors import TepadError
from .current import current_targets

_NATIVE: dict = {}


class GenericFunc:
    """A function with a default and specializations per target key; calling it runs the
    specialization of the first key of the current target that has one, else the default
    (a TepadError when there is none)."""

    def __init__(self, name: str = "generic_func", default=None):
        self.name = name
        self.default = default
        self.dispatch: dict = {}

    def set_default(self, func, allow_override: bool = False):
        """Make ``func`` the default; replacing one needs ``allow_override``."""
        if self.default is not None and not allow_override:
            raise TepadError(f"generic function {self.name}: a default is already set; pass "
                             "allow_override=True to replace it")
        self.default = func
        return self

    def register(self, func, key_list, allow_override: bool = False):
        """Register ``func`` for the target keys ``key_list`` (a key or a list of keys); a key
        registered before needs ``allow_override``."""
        return self._register(key_list, allow_override)(func)

    def _register(self, key_list, override: bool):
        keys = [key_list] if isinstance(key_list, str) else list(key_list)

        def add(f):
            for k in keys:
                if not isinstance(k, str):
                    raise TepadError(f"generic function {self.name}.register: target keys are "
                                     f"strings such as 'cpu' or 'cuda', got {k!r}")
                if k in self.dispatch and not override:
                    raise TepadError(f"generic function {self.name}: key {k!r} is already "
                                     "registered; pass override=True to replace it")
                self.dispatch[k] = f
            return f
        return add

    def get_packed_func(self):
        return self

    def __call__(self, *args, **kwargs):
        target = current_targets.top()
        if target is not None:
            for key in target.keys:
                f = self.dispatch.get(key)
                if f is not None:
                    return f(*args, **kwargs)
        if self.default is None:
            where = f"target {target}" if target is not None else "no current target"
            raise TepadError(f"generic function {self.name}: no specialization for {where} "
                             f"(keys {sorted(self.dispatch)}) and no default")
        return self.default(*args, **kwargs)


def _dispatcher(gf: GenericFunc, fdefault):
    """A Python function calling ``gf``, with TVM's ``register(key, func=None,
    override=False)`` decorator method."""
    @functools.wraps(fdefault)
    def dispatch(*args, **kwargs):
        return gf(*args, **kwargs)

    def register(key, func=None, override=False):
        add = gf._register(key, override)
        return add if func is None else add(func)
    dispatch.register = register
    dispatch.fdefault = fdefault
    dispatch.generic_func_node = gf
    return dispatch


def generic_func(fdefault):
    """Decorator: ``fdefault`` becomes the default of a generic function with a
    ``register(key_list, func=None, override=False)`` method."""
    return _dispatcher(GenericFunc(getattr(fdefault, "__name__", "generic_func"), fdefault),
                       fdefault)


def get_native_generic_func(name: str) -> GenericFunc:
    """The generic function registered under ``name`` (made empty on first use)."""
    gf = _NATIVE.get(name)
    if gf is None:
        gf = _NATIVE[name] = GenericFunc(name)
    return gf


def override_native_generic_func(func_name: str):
    """Decorator factory: the decorated function becomes the default of the generic function
    named ``func_name`` (replacing an earlier default), with ``register``."""
    def wrap(fdefault):
        gf = get_native_generic_func(func_name)
        gf.set_default(fdefault, allow_override=True)
        return _dispatcher(gf, fdefault)
    return wrap


__all__ = ["GenericFunc", "generic_func", "get_native_generic_func",
           "override_native_generic_func"]
