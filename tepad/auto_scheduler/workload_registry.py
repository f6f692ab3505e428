"""Workload registry (TVM's ``auto_scheduler.register_workload``): a function returning the
list of a computation's tensors (inputs first, outputs last), registered under a name, and
workload keys, ``json.dumps([name, *args])``, that name it with its arguments."""
from __future__ import annotations

import json

from ..errors import TepadError
from ..tensor.tensor import Tensor

WORKLOAD_FUNC_REGISTRY: dict = {}


def register_workload(func_name, f=None, override=False):
    """Register a workload function: ``@register_workload``, ``@register_workload("name")``
    or ``register_workload("name", f)``. The function returns a list of Tensors. Registering
    a name again replaces the function (a re-run script or notebook cell registers anew;
    ``override`` is accepted for TVM's signature)."""
    if callable(func_name):
        f, func_name = func_name, func_name.__name__
    if not isinstance(func_name, str):
        raise TepadError(f"register_workload: the name must be a string, got {func_name!r}")

    def register(myf):
        if not callable(myf):
            raise TepadError(f"register_workload({func_name!r}): expects a function, got "
                             f"{myf!r}")
        WORKLOAD_FUNC_REGISTRY[func_name] = myf
        return myf

    return register(f) if f is not None else register


def _serialize(a):
    if isinstance(a, (list, tuple)):
        return [_serialize(x) for x in a]
    if isinstance(a, (int, float, str, bool)) or a is None:
        return a
    if hasattr(a, "value"):              # IntImm and the like
        return a.value
    raise TepadError(f"workload argument {a!r} ({type(a).__name__}) cannot go into a workload "
                     "key; use ints, floats, strings and lists of them")


def make_workload_key(func, args) -> str:
    """``json.dumps([name, *args])`` for a registered function (or its name)."""
    name = func if isinstance(func, str) else getattr(func, "__name__", None)
    if name not in WORKLOAD_FUNC_REGISTRY:
        raise TepadError(f"workload {name!r} is not registered; decorate its function with "
                         "@auto_scheduler.register_workload (registered: "
                         f"{sorted(WORKLOAD_FUNC_REGISTRY)})")
    return json.dumps([name] + [_serialize(a) for a in args])


def decode_workload_key(workload_key: str):
    """``(name, args)`` of a workload key."""
    try:
        data = json.loads(workload_key)
        return data[0], tuple(data[1:])
    except (ValueError, IndexError, TypeError) as err:
        raise TepadError(f"workload key {workload_key!r} is not json.dumps([name, *args]): "
                         f"{err}") from None


def workload_key_to_tensors(workload_key: str) -> list:
    """The tensors the registered function returns for the key's arguments."""
    name, args = decode_workload_key(workload_key)
    if name not in WORKLOAD_FUNC_REGISTRY:
        raise TepadError(f"workload {name!r} (key {workload_key}) is not registered in this "
                         "process; import the module that registers it")
    tensors = WORKLOAD_FUNC_REGISTRY[name](*args)
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    if not tensors or not all(isinstance(t, Tensor) for t in tensors):
        raise TepadError(f"workload {name!r} must return a list of Tensors, got {tensors!r}")
    return tensors
