"""Data types as strings ("int32", "float32", "bool", "float32x8"), with small parsing helpers."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..errors import TepadError

_SCALARS = {
    "bool": ("uint", 1), "int8": ("int", 8), "int16": ("int", 16), "int32": ("int", 32),
    "int64": ("int", 64), "uint8": ("uint", 8), "uint16": ("uint", 16), "uint32": ("uint", 32),
    "uint64": ("uint", 64), "float16": ("float", 16), "float32": ("float", 32),
    "float64": ("float", 64), "handle": ("handle", 64),
    # bfloat16: stored as 16 bits (numpy sees uint16), computed in float32 and rounded back
    # to bfloat16 after every operation (TVM's BF16 legalization)
    "bfloat16": ("float", 16),
}


def numpy_name(dtype: str) -> str:
    """The numpy dtype name of ``dtype``'s elements (bfloat16: uint16, its storage)."""
    s = parse(dtype).scalar
    return "uint16" if s == "bfloat16" else s


class DType:
    """Parsed dtype: ``code`` in {"int", "uint", "float", "handle"}, ``bits``, ``lanes``."""

    __slots__ = ("name", "scalar", "code", "bits", "lanes")

    def __init__(self, name: str):
        self.name = name
        scalar, lanes = name, 1
        if "x" in name:
            scalar, _, lanes_s = name.rpartition("x")
            if not lanes_s.isdigit():
                raise TepadError(f"unknown dtype {name!r}")
            lanes = int(lanes_s)
        if scalar not in _SCALARS:
            raise TepadError(
                f"unknown dtype {name!r}; valid scalar dtypes are {sorted(_SCALARS)}")
        self.scalar = scalar
        self.code, self.bits = _SCALARS[scalar]
        self.lanes = lanes

    @property
    def is_bool(self):
        return self.scalar == "bool"

    @property
    def is_int(self):
        return self.code == "int"

    @property
    def is_uint(self):
        return self.code == "uint" and not self.is_bool

    @property
    def is_integer(self):
        """int or uint, excluding bool."""
        return self.code in ("int", "uint") and not self.is_bool

    @property
    def is_float(self):
        return self.code == "float"

    @property
    def bytes(self):
        return max(1, self.bits // 8)


@lru_cache(maxsize=None)
def parse(dtype: str) -> DType:
    if not isinstance(dtype, str):
        raise TypeError(f"dtype must be a string such as 'float32', got {dtype!r}")
    return DType(dtype)


def is_int(dtype: str) -> bool:
    """True for signed/unsigned integer dtypes (not bool)."""
    return parse(dtype).is_integer


def is_float(dtype: str) -> bool:
    return parse(dtype).is_float


def is_bool(dtype: str) -> bool:
    return parse(dtype).is_bool


def lanes(dtype: str) -> int:
    return parse(dtype).lanes


def element_of(dtype: str) -> str:
    """The scalar dtype of a (possibly vector) dtype."""
    return parse(dtype).scalar


def with_lanes(dtype: str, n: int) -> str:
    s = parse(dtype).scalar
    return s if n == 1 else f"{s}x{n}"


# TVM's short names: "float" is float32, "int" int32, "uint" uint32, "int1" bool
ALIASES = {"float": "float32", "int": "int32", "uint": "uint32", "int1": "bool",
           "double": "float64"}


def canonical(dtype) -> str:
    """Accept numpy dtypes and type objects as well as strings (and TVM's short names,
    ``ALIASES``)."""
    # TVM's type annotations (tvm.ir.PrimType / PointerType) name the dtype they stand for
    dtype = getattr(dtype, "tvm_dtype", dtype)
    if isinstance(dtype, str):
        dtype = ALIASES.get(dtype, dtype)
        parse(dtype)
        return dtype
    try:
        name = np.dtype(dtype).name
    except TypeError as e:
        raise TypeError(f"not a dtype: {dtype!r}") from e
    parse(name)
    return name
