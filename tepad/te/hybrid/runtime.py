"""Hybrid script run as Python (TVM's software emulation): when a script is called with numpy
arrays, the intrinsics it names are bound to these numpy versions while it runs."""
from __future__ import annotations

import math
import threading

import numpy as np

from .values import max_num_threads as _max_num_threads


class bind:  # noqa: N801 -- TVM's name
    """``for i in bind("threadIdx.x", n)``: in emulation the threads run one after another."""

    def __init__(self, tag, extent):
        self.tag, self.extent = tag, int(extent)

    def __iter__(self):
        return iter(range(self.extent))


def allocate(shape, dtype="float32", scope="global"):    # noqa: ARG001 -- scope: TVM's
    """A zero-filled array (``output_tensor`` is the same in emulation)."""
    return np.zeros(shape, dtype=dtype)


def output_tensor(shape, dtype="float32"):
    return np.zeros(shape, dtype=dtype)


def _popcount(x):
    return bin(int(x) & (2 ** 64 - 1)).count("1")


def _cast(name):
    ty = getattr(np, name if name != "bool" else "bool_")
    return lambda x: ty(x)


def _inf(dtype):
    d = np.dtype(dtype)
    return np.finfo(d).max if d.kind == "f" else np.iinfo(d).max


def _ninf(dtype):
    d = np.dtype(dtype)
    return np.finfo(d).min if d.kind == "f" else np.iinfo(d).min


HYBRID_GLOBALS = {
    "unroll": range, "vectorize": range, "parallel": range, "const_range": range,
    "bind": bind, "allocate": allocate, "output_tensor": output_tensor,
    "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "log": np.log, "exp": np.exp,
    "tanh": np.tanh, "power": np.power, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "popcount": _popcount, "round": np.round, "floor": np.floor, "ceil": np.ceil,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "atan": np.arctan, "erf": np.vectorize(math.erf),
    "log2": np.log2, "log10": np.log10, "exp2": np.exp2, "trunc": np.trunc, "isnan": np.isnan,
    "likely": lambda c: c, "ceil_div": lambda a, b: (a + b - 1) // b,
    "inf": _inf, "ninf": _ninf,
    "max_num_threads": lambda allow_none=True: _max_num_threads([allow_none]),
    **{n: _cast(n) for n in ("float16", "float32", "float64", "int8", "int16", "int32",
                             "int64", "uint8", "uint16", "uint32", "uint64", "bool")},
}

_lock = threading.RLock()


def run(func, args, kwargs):
    """``func(*args, **kwargs)`` with the hybrid intrinsics bound in its globals (restored
    afterwards, also when it raises)."""
    g = func.__globals__
    with _lock:
        saved = {k: g[k] for k in HYBRID_GLOBALS if k in g}
        g.update(HYBRID_GLOBALS)
        try:
            return func(*args, **kwargs)
        finally:
            for k in HYBRID_GLOBALS:
                g.pop(k, None)
            g.update(saved)


__all__ = ["HYBRID_GLOBALS", "run", "bind", "allocate", "output_tensor"]
