"""``tvm.ir.save_json`` / ``load_json``: tepad objects (expressions, statements, tensors,
operations, schedules, functions, modules) as JSON text and back.

The text is a graph: every object appears once in ``nodes`` (its class and its attributes),
and every use of it is a ``{"ref": k}``, so sharing and cycles (a Tensor and its operation)
survive the round trip and ``load_json`` gives one object where ``save_json`` saw one. Only
classes defined in tepad are written or read; anything else (a lambda, an open file) is a
TepadError naming the attribute path that holds it.
"""
from __future__ import annotations

import enum
import importlib
import json
import math
import types

from ..errors import TepadError


FORMAT = "tepad-json"
VERSION = 1
# attributes that are caches, recomputed on demand after loading
_CACHES = {"_hash"}


def _state_names(obj):
    names = []
    for cls in type(obj).__mro__:
        for n in getattr(cls, "__slots__", ()):
            if n not in ("__dict__", "__weakref__") and n not in names:
                names.append(n)
    names += [n for n in getattr(obj, "__dict__", {}) if n not in names]
    return names


class _Writer:
    def __init__(self):
        self.ids: dict[int, int] = {}
        self.nodes: list = []
        self.keep: list = []   # objects referenced by id: alive until the write ends

    def value(self, v, path):
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, enum.Enum):
            return {"enum": _class_name(type(v), path), "name": v.name}
        if isinstance(v, int):
            return v
        if isinstance(v, float):
            return v if math.isfinite(v) else {"float": repr(v)}
        if isinstance(v, list):
            return {"list": [self.value(x, f"{path}[{k}]") for k, x in enumerate(v)]}
        if isinstance(v, tuple):
            return {"tuple": [self.value(x, f"{path}[{k}]") for k, x in enumerate(v)]}
        if isinstance(v, (set, frozenset)):
            kind = "set" if isinstance(v, set) else "frozenset"
            return {kind: [self.value(x, f"{path}{{}}") for x in v]}
        if isinstance(v, dict):
            return {"dict": [[self.value(k, f"{path}.key"), self.value(x, f"{path}[{k!r}]")]
                             for k, x in v.items()]}
        if hasattr(v, "item") and type(v).__module__ == "numpy":   # numpy scalar
            return self.value(v.item(), path)
        return {"ref": self.object(v, path)}

    def object(self, obj, path):
        k = self.ids.get(id(obj))
        if k is not None:
            return k
        if isinstance(obj, (types.FunctionType, types.LambdaType, types.MethodType,
                            types.ModuleType, type)):
            raise TepadError(f"save_json: {path} is a {type(obj).__name__} ({obj!r}); only "
                             "tepad's IR objects, numbers, strings and containers of them "
                             "can be saved")
        cls = _class_name(type(obj), path)
        k = len(self.nodes)
        self.ids[id(obj)] = k
        self.keep.append(obj)
        entry = {"type": cls, "attrs": {}}
        self.nodes.append(entry)
        for name in _state_names(obj):
            if name in _CACHES or not hasattr(obj, name):
                continue
            entry["attrs"][name] = self.value(getattr(obj, name), f"{path}.{name}")
        return k


def _class_name(cls, path):
    if not cls.__module__.startswith("tepad."):
        raise TepadError(f"save_json: {path} is a {cls.__module__}.{cls.__qualname__}, not a "
                         "tepad object; only tepad's IR objects, numbers, strings and "
                         "containers of them can be saved")
    return f"{cls.__module__}:{cls.__qualname__}"


def _resolve(name):
    module, _, qual = name.partition(":")
    if not module.startswith("tepad.") or not qual:
        raise TepadError(f"load_json: type {name!r} is not a tepad class")
    obj = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj


def save_json(obj) -> str:
    """JSON text for ``obj`` (TVM's ``tvm.ir.save_json``); ``load_json`` reads it back."""
    w = _Writer()
    root = w.value(obj, type(obj).__name__)
    return json.dumps({"format": FORMAT, "version": VERSION, "root": root, "nodes": w.nodes})


class _Reader:
    def __init__(self, nodes):
        self.nodes = nodes
        self.objs = []
        for n in nodes:
            cls = _resolve(n["type"])
            self.objs.append(cls.__new__(cls))

    def value(self, v):
        if not isinstance(v, dict):
            return v
        if "ref" in v:
            return self.objs[v["ref"]]
        if "list" in v:
            return [self.value(x) for x in v["list"]]
        if "tuple" in v:
            return tuple(self.value(x) for x in v["tuple"])
        if "set" in v:
            return {self.value(x) for x in v["set"]}
        if "frozenset" in v:
            return frozenset(self.value(x) for x in v["frozenset"])
        if "dict" in v:
            return {self.value(k): self.value(x) for k, x in v["dict"]}
        if "float" in v:
            return float(v["float"])
        if "enum" in v:
            return _resolve(v["enum"])[v["name"]]
        raise TepadError(f"load_json: unknown value {v!r}")

    def fill(self):
        # containers that hash their members (dicts, sets) are built after every object has
        # its plain attributes, since a key's hash may read them
        later = []
        for obj, n in zip(self.objs, self.nodes):
            for name, v in n["attrs"].items():
                if _hashes_members(v):
                    later.append((obj, name, v))
                else:
                    object.__setattr__(obj, name, self.value(v))
            for name in _state_names_of_class(type(obj)):
                if name in _CACHES:
                    object.__setattr__(obj, name, None)
        for obj, name, v in later:
            object.__setattr__(obj, name, self.value(v))


def _state_names_of_class(cls):
    return [n for c in cls.__mro__ for n in getattr(c, "__slots__", ())]


def _hashes_members(v):
    if isinstance(v, dict):
        if "dict" in v or "set" in v or "frozenset" in v:
            return True
        return any(_hashes_members(x) for x in v.get("list", v.get("tuple", ())))
    return False


def load_json(text: str):
    """The object ``save_json`` wrote (TVM's ``tvm.ir.load_json``): the same classes, the
    same sharing between parts."""
    try:
        doc = json.loads(text)
    except (TypeError, ValueError) as e:
        raise TepadError(f"load_json: not JSON text ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise TepadError("load_json: not text written by tepad's save_json (no "
                         f"\"format\": \"{FORMAT}\")")
    if doc.get("version") != VERSION:
        raise TepadError(f"load_json: version {doc.get('version')!r}; this tepad reads "
                         f"version {VERSION}")
    r = _Reader(doc["nodes"])
    r.fill()
    return r.value(doc["root"])


__all__ = ["save_json", "load_json"]
