"""TVM's ``tvm.ir.save_json`` / ``load_json`` for tepad's objects.

``save_json(obj)`` writes the object graph reachable from ``obj`` (tensors, operations,
expressions, schedules, ...) as JSON text: every object once, in a node table, referenced by
index, so shared and cyclic references survive. Objects are taken apart the way ``pickle``
takes them apart (``__reduce_ex__``: a class and its state), so anything tepad can pickle it
can save. ``load_json(text)`` rebuilds an equal graph of fresh objects; it only recreates
classes and calls functions of tepad's own modules (and a few builtins such as ``set``),
whatever the text says.

A Python function that is not a module-level tepad function (e.g. a lambda stored as a
``pad_value``) cannot be written as JSON: ``save_json`` raises a ``TepadError`` naming it.
"""
from __future__ import annotations

import copyreg
import importlib
import json

import numpy as np

from ..errors import TepadError

_FORMAT = "tepad-json-1"
_BUILTINS = {"set", "frozenset", "complex", "slice", "bytearray", "getattr"}


def _global_name(obj) -> str:
    mod = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None)
    if not mod or not qual or "<" in qual:
        raise TepadError(f"save_json: cannot write {obj!r} as JSON (a Python function or class "
                         "that is not defined at the top level of a tepad module)")
    if not (mod == "tepad" or mod.startswith("tepad.") or
            (mod == "builtins" and qual in _BUILTINS)):
        raise TepadError(f"save_json: cannot write {obj!r} ({mod}.{qual}) as JSON; only "
                         "tepad's own objects are saved")
    return f"{mod}:{qual}"


def _resolve(name: str):
    mod, _, qual = name.partition(":")
    if not (mod == "tepad" or mod.startswith("tepad.") or
            (mod == "builtins" and qual in _BUILTINS)):
        raise TepadError(f"load_json: refusing to load {name!r}: only tepad's own classes and "
                         "functions are recreated")
    obj = importlib.import_module(mod)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj


class _Writer:
    def __init__(self):
        self.nodes: list = []
        self.memo: dict = {}
        self.keep: list = []       # reduce results stay alive while ids are memo keys

    def value(self, x):
        if x is None or isinstance(x, (bool, str)):
            return x
        if isinstance(x, (int, float)) and type(x) in (int, float):
            return x
        if isinstance(x, np.generic):
            return {"$np": [str(x.dtype), x.item()]}
        if isinstance(x, np.dtype):
            return {"$dtype": str(x)}
        if isinstance(x, np.ndarray):
            return {"$array": [str(x.dtype), list(x.shape), x.ravel().tolist()]}
        if isinstance(x, list):
            return {"$list": [self.value(v) for v in x]}
        if isinstance(x, tuple) and type(x) is tuple:
            return {"$tuple": [self.value(v) for v in x]}
        if isinstance(x, dict) and type(x) is dict:
            return {"$dict": [[self.value(k), self.value(v)] for k, v in x.items()]}
        if isinstance(x, type) or _is_function(x):
            return {"$global": _global_name(x)}
        return {"$ref": self.node(x)}

    def node(self, x) -> int:
        k = self.memo.get(id(x))
        if k is not None:
            return k
        try:
            rv = x.__reduce_ex__(2)
        except TypeError as e:
            raise TepadError(f"save_json: cannot write {x!r} as JSON: {e}") from None
        if isinstance(rv, str):
            return self.node_global(x)
        k = len(self.nodes)
        entry: dict = {}
        self.nodes.append(entry)
        self.memo[id(x)] = k
        self.keep.append((x, rv))
        func, args = rv[0], rv[1]
        state = rv[2] if len(rv) > 2 else None
        items = list(rv[3]) if len(rv) > 3 and rv[3] is not None else None
        ditems = list(rv[4]) if len(rv) > 4 and rv[4] is not None else None
        if func is copyreg.__newobj__:
            entry["new"] = _global_name(args[0])
            entry["args"] = self.value(tuple(args[1:]))
        else:
            entry["call"] = _global_name(func)
            entry["args"] = self.value(tuple(args))
        if state is not None:
            entry["state"] = self.value(state)
        if items:
            entry["items"] = self.value(items)
        if ditems:
            entry["ditems"] = self.value([tuple(p) for p in ditems])
        return k

    def node_global(self, x):
        k = len(self.nodes)
        self.nodes.append({"global": _global_name(x)})
        self.memo[id(x)] = k
        self.keep.append(x)
        return k


def _is_function(x):
    return type(x).__name__ in ("function", "builtin_function_or_method")


def save_json(obj) -> str:
    """``obj`` (any tepad object: a Tensor, an Operation, a Schedule, an expression, ...) as
    JSON text that ``load_json`` turns back into an equal object."""
    w = _Writer()
    root = w.value(obj)
    return json.dumps({"format": _FORMAT, "root": root, "nodes": w.nodes})


class _Reader:
    def __init__(self, nodes):
        self.nodes = nodes
        self.objs: dict = {}
        self.dicts: list = []       # (dict, encoded pairs): filled once every state is set

    def value(self, v):
        if not isinstance(v, dict):
            return v
        if "$ref" in v:
            return self.obj(v["$ref"])
        if "$list" in v:
            return [self.value(x) for x in v["$list"]]
        if "$tuple" in v:
            return tuple(self.value(x) for x in v["$tuple"])
        if "$dict" in v:
            pairs = v["$dict"]
            if all(not isinstance(kv[0], dict) for kv in pairs):
                return {kv[0]: self.value(kv[1]) for kv in pairs}   # plain keys: at once
            d: dict = {}
            self.dicts.append((d, pairs))
            return d
        if "$np" in v:
            dt, item = v["$np"]
            return np.dtype(dt).type(item)
        if "$dtype" in v:
            return np.dtype(v["$dtype"])
        if "$array" in v:
            dt, shape, data = v["$array"]
            return np.asarray(data, dtype=dt).reshape(shape)
        if "$global" in v:
            return _resolve(v["$global"])
        raise TepadError(f"load_json: unknown value {v!r}")

    def obj(self, k):
        if k in self.objs:
            return self.objs[k]
        e = self.nodes[k]
        if "global" in e:
            o = _resolve(e["global"])
        elif "new" in e:
            cls = _resolve(e["new"])
            if not isinstance(cls, type):
                raise TepadError(f"load_json: {e['new']} is not a class")
            o = cls.__new__(cls, *self.value(e["args"]))
        else:
            o = _resolve(e["call"])(*self.value(e["args"]))
        self.objs[k] = o
        return o

    def load(self, root):
        """Objects are made first, their states set next, dicts filled last: a key may hash
        by its state (a Tensor hashes its op and value index)."""
        out = self.value(root)
        self.filled = set()
        self.fill_states()
        k = 0
        while k < len(self.dicts):
            d, pairs = self.dicts[k]
            k += 1
            decoded = [(self.value(kv[0]), self.value(kv[1])) for kv in pairs]
            self.fill_states()
            for key, val in decoded:
                d[key] = val
        return out

    def fill_states(self):
        while len(self.filled) < len(self.objs):
            for k in list(self.objs):
                if k not in self.filled:
                    self.filled.add(k)
                    self.fill(self.objs[k], self.nodes[k])

    def fill(self, o, e):
        if "state" in e:
            state = self.value(e["state"])
            setstate = getattr(type(o), "__setstate__", None)
            if setstate is not None and setstate is not object.__dict__.get("__setstate__"):
                o.__setstate__(state)
            else:
                slots = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slots = state
                if state:
                    o.__dict__.update(state)
                for name, val in (slots or {}).items():
                    object.__setattr__(o, name, val)
        if "items" in e:
            for x in self.value(e["items"]):
                o.append(x)
        if "ditems" in e:
            self.dicts.append((o, [list(p) for p in e["ditems"]["$list"]]))


def load_json(text: str):
    """The object ``save_json`` wrote (fresh objects, same structure)."""
    try:
        doc = json.loads(text)
    except (TypeError, ValueError) as e:
        raise TepadError(f"load_json: not JSON text: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != _FORMAT:
        raise TepadError("load_json: not a tepad save_json document (missing format "
                         f"{_FORMAT!r})")
    return _Reader(doc["nodes"]).load(doc["root"])


__all__ = ["save_json", "load_json"]
