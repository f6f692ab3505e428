"""TVM's ``tvm.target.generic_func``: a function with per-target specializations, chosen by the
current target (``with tvm.target.Target("cuda"): f(x)`` calls what was registered for a key
of that target, ``"cuda"`` or ``"gpu"``; otherwise the default).

* ``@generic_func`` on a default function gives the dispatching function; its
  ``.register(key_or_keys, func=None, override=False)`` adds a specialization (a decorator
  without ``func``). Registering a key twice without ``override`` is a TepadError.
* ``@override_native_generic_func("name")`` does the same and records the function under
  ``name``, where ``get_native_generic_func("name")`` finds it (TVM keeps those in C++).
* ``GenericFunc`` is that record: ``set_default``, ``register(func, key_list)``, callable.

The keys of a target are ``Target.keys`` (``llvm`` -> ``("cpu",)``; ``cuda`` ->
``("cuda", "gpu")``), tried in order; the target is the innermost ``with Target(...)``
(``tepad.target.current``).
"""
from __future__ import annotations

import functools

from ..errors import TepadError
from .current import current_targets

_native: dict = {}


class GenericFunc:
    """A default function and its specializations by target key."""

    def __init__(self, name: str, fdefault=None):
        self.name = name
        self.fdefault = fdefault
        self.dispatch: dict = {}

    def set_default(self, func, allow_override=False):
        """Make ``func`` the function called when no key of the target is registered."""
        if self.fdefault is not None and not allow_override:
            raise TepadError(f"generic function {self.name!r} has a default already; pass "
                             "allow_override=True to replace it")
        self.fdefault = func

    def register(self, func, key_list, allow_override=False):
        """Make ``func`` the specialization of every key of ``key_list`` (a str or a list)."""
        keys = [key_list] if isinstance(key_list, str) else list(key_list)
        if not keys or not all(isinstance(k, str) and k for k in keys):
            raise TepadError(f"generic function {self.name!r}: register takes target keys "
                             f"such as 'cpu', 'cuda', 'gpu', got {key_list!r}")
        if not callable(func):
            raise TepadError(f"generic function {self.name!r}: {func!r} is not callable")
        for k in keys:
            if k in self.dispatch and not allow_override:
                raise TepadError(f"generic function {self.name!r}: key {k!r} is already "
                                 "registered; pass override=True to replace it")
            self.dispatch[k] = func
        return func

    def get_packed_func(self):
        """The function the current target would call."""
        target = current_targets.top()
        if target is not None:
            for k in target.keys:
                if k in self.dispatch:
                    return self.dispatch[k]
        if self.fdefault is None:
            raise TepadError(f"generic function {self.name!r} has no default and nothing "
                             f"registered for the target {target}")
        return self.fdefault

    def __call__(self, *args, **kwargs):
        return self.get_packed_func()(*args, **kwargs)


def _wrap(gf: GenericFunc, fdefault):
    @functools.wraps(fdefault)
    def dispatch(*args, **kwargs):
        return gf(*args, **kwargs)

    def register(key, func=None, override=False):
        def do(f):
            return gf.register(f, key, allow_override=override)
        return do if func is None else do(func)

    dispatch.register = register
    dispatch.fdefault = fdefault
    dispatch.generic_func_node = gf
    dispatch.get_packed_func = gf.get_packed_func
    return dispatch


def generic_func(fdefault):
    """``fdefault`` as a target-dispatched function with ``.register`` (module docstring)."""
    if not callable(fdefault):
        raise TepadError(f"generic_func decorates a function, got {fdefault!r}")
    return _wrap(GenericFunc(fdefault.__name__, fdefault), fdefault)


def get_native_generic_func(name: str) -> GenericFunc:
    """The GenericFunc recorded under ``name`` (created empty on first use, as in TVM)."""
    if not isinstance(name, str) or not name:
        raise TepadError(f"get_native_generic_func: the name is a non-empty string, got "
                         f"{name!r}")
    return _native.setdefault(name, GenericFunc(name))


def override_native_generic_func(func_name: str):
    """A decorator: the function becomes the default of the GenericFunc ``func_name`` and is
    returned dispatching through it (with ``.register``)."""
    def decorate(fdefault):
        gf = get_native_generic_func(func_name)
        gf.set_default(fdefault, allow_override=True)
        return _wrap(gf, fdefault)
    return decorate


__all__ = ["GenericFunc", "generic_func", "get_native_generic_func",
           "override_native_generic_func"]
