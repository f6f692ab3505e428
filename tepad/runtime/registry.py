"""Global functions (TVM's ``tvm.register_func`` / ``tvm.get_global_func``) and the bridge
that lets generated code call them (``tir.call_packed``).

A kernel calls ``tir.call_packed("name", *args)`` through the C symbol ``tepad_call_packed``
(a ctypes callback registered with LLVM when llvmlite.binding is first loaded, before any
kernel is compiled)::

    int32 tepad_call_packed(const char *name, const char *desc, int64 *values)

``desc`` says what each argument is, comma-separated: ``i`` (an integer in one slot), ``f``
(a double's bits), ``p`` (a pointer), ``b:<dtype>:<ndim>`` (an array: its data pointer, then
its ``ndim`` dimensions). The function is called with Python ints, floats, ``ctypes.c_void_p``
and ``NDArray`` views of the kernel's memory (writes go to the kernel's buffers). A raised
exception makes the callback return 1; the kernel stops and its ``Module`` raises that
exception again (``take_error``).
"""
from __future__ import annotations

import ctypes
import functools
import struct
import threading

import numpy as np

from .._lazy import lazy_module
from ..codegen.symbols import CALL_PACKED_SYMBOL, provide
from ..errors import TepadError
from ..target.intrin import register_intrin_rule
from ..tir import dtype as dt
from .container import Array, Map
from .ndarray import NDArray

# tensorize's analyses, for TVM's test hooks below (loaded when first called)
_tensorize = lazy_module("tepad.lower.tensorize")


_funcs: dict = {}
# global functions named so are intrinsic lowering rules (tvm.intrin.rule.<kind>.<op>)
INTRIN_RULE_PREFIX = "tvm.intrin.rule."
_lock = threading.Lock()
_last_error = [None]


def register_func(func_name, f=None, override=False):
    """Register ``f`` as the global function ``func_name`` (TVM's ``tvm.register_func``);
    without ``f``, a decorator. A name registered before is an error unless ``override``."""
    if callable(func_name) and f is None:
        return register_func(func_name.__name__, func_name, override)
    if not isinstance(func_name, str) or not func_name:
        raise TepadError(f"register_func: the name must be a non-empty string, got "
                         f"{func_name!r}")

    def register(fn):
        if not callable(fn):
            raise TepadError(f"register_func({func_name!r}): {fn!r} is not callable")
        with _lock:
            if func_name in _funcs and not override:
                raise TepadError(f"global function {func_name!r} is already registered; pass "
                                 "override=True to replace it")
            _funcs[func_name] = fn
        if func_name.startswith(INTRIN_RULE_PREFIX):     # TVM 0.6's way to add a rule
            kind, _, intrin = func_name[len(INTRIN_RULE_PREFIX):].partition(".")
            if kind and intrin:
                register_intrin_rule(kind, intrin, fn, override=True)
        return fn

    return register if f is None else register(f)


def _infer_tensorize_region(stage, dom_map):
    out_dom, in_region = _tensorize.infer_tensorize_region(stage, dom_map)
    return Array([Map(out_dom), Map((t, Array(r)) for t, r in in_region.items())])


def _match_tensorize_body(stage, out_dom, in_dom, intrin):
    return Array(_tensorize.match_tensorize_body(stage, dict(out_dom),
                                      {t: list(r) for t, r in in_dom.items()}, intrin))


# functions TVM registers from C++ for its tests of schedule internals
_BUILTIN = {
    "test.op.InferTensorizeRegion": _infer_tensorize_region,
    "test.op.MatchTensorizeBody": _match_tensorize_body,
}


def get_global_func(name, allow_missing=False):
    """The function registered as ``name``; None when missing and ``allow_missing``.
    Besides those registered with ``register_func``: ``test.op.InferTensorizeRegion(stage,
    bounds)`` -> ``[{root IterVar: Range}, {tensor: [Range]}]``, the tile of a tensorized
    stage and what it reads, and ``test.op.MatchTensorizeBody(stage, out_dom, in_dom,
    intrin)`` -> the stage's body over that tile written on the intrinsic's axes and inputs
    (TVM's hooks of the same names)."""
    f = _funcs.get(name) or _BUILTIN.get(name)
    if f is None and not allow_missing:
        raise TepadError(f"no global function {name!r} is registered (tepad.register_func)")
    return f


def list_global_func_names() -> list:
    return sorted(set(_funcs) | set(_BUILTIN))


def remove_global_func(name):
    _funcs.pop(name, None)


def take_error():
    """The exception the last failed ``call_packed`` raised (then forgotten), or None. The
    failure may have happened on a thread of a parallel loop, so it is kept process-wide."""
    with _lock:
        e, _last_error[0] = _last_error[0], None
    return e


@functools.lru_cache(maxsize=None)
def _parse_desc(desc: bytes) -> tuple:
    out = []
    for part in desc.decode().split(","):
        if part.startswith("b:"):
            _, dtype, ndim = part.split(":")
            out.append(("b", np.dtype(dt.numpy_name(dtype) if dtype != "bool" else np.bool_), int(ndim)))
        elif part:
            out.append((part, None, 0))
    return tuple(out)


def _args(desc: bytes, values) -> list:
    args, k = [], 0
    for kind, dtype, ndim in _parse_desc(desc):
        v = values[k]
        k += 1
        if kind == "i":
            args.append(int(v))
        elif kind == "f":
            args.append(struct.unpack("<d", struct.pack("<q", v))[0])
        elif kind == "p":
            args.append(ctypes.c_void_p(v & (2 ** 64 - 1)))
        else:
            shape = tuple(int(values[k + d]) for d in range(ndim))
            k += ndim
            n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            buf = (ctypes.c_char * max(n, 1)).from_address(v & (2 ** 64 - 1))
            arr = np.frombuffer(buf, dtype=dtype, count=int(np.prod(shape, dtype=np.int64)))
            args.append(NDArray(arr.reshape(shape)))
    return args


_CALLBACK_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_char_p, ctypes.c_char_p,
                                  ctypes.POINTER(ctypes.c_int64))


@_CALLBACK_TYPE
def _call_packed(name, desc, values):
    try:
        f = get_global_func(name.decode())
        f(*_args(desc, values))
        return 0
    except BaseException as e:  # noqa: BLE001 - re-raised by the Module after the kernel returns
        with _lock:
            _last_error[0] = e
        return 1



provide(CALL_PACKED_SYMBOL, ctypes.cast(_call_packed, ctypes.c_void_p).value)

__all__ = ["register_func", "get_global_func", "list_global_func_names", "remove_global_func",
           "take_error", "CALL_PACKED_SYMBOL"]
