"""TVM's ``tvm.DataType`` / ``tvm.runtime.DataType`` (a dtype string's parts: ``type_code``,
``bits``, ``lanes``) and ``DataTypeCode``, over tepad's dtype strings (``tepad.tir.dtype``)."""
from __future__ import annotations

import enum

from ..tir import dtype as dt


class DataTypeCode(enum.IntEnum):
    """TVM's type codes."""
    INT = 0
    UINT = 1
    FLOAT = 2
    HANDLE = 3
    BFLOAT = 4


_CODES = {"int": DataTypeCode.INT, "uint": DataTypeCode.UINT, "float": DataTypeCode.FLOAT,
          "handle": DataTypeCode.HANDLE}


class DataType:
    """``DataType("float32x4")``: ``type_code`` (a ``DataTypeCode``), ``bits``, ``lanes``;
    ``str()`` gives the dtype string back and it compares equal to it."""

    __slots__ = ("_name", "type_code", "bits", "lanes")

    def __init__(self, type_str):
        name = dt.canonical(str(type_str))
        d = dt.parse(name)
        self._name = name
        self.type_code = DataTypeCode.BFLOAT if d.scalar == "bfloat16" else _CODES[d.code]
        self.bits = d.bits
        self.lanes = d.lanes

    @property
    def itemsize(self) -> int:
        """Bytes of one element (all lanes)."""
        return (self.bits * self.lanes + 7) // 8

    def __str__(self):
        return self._name

    def __repr__(self):
        return f"DataType({self._name!r})"

    def __eq__(self, other):
        if isinstance(other, DataType):
            return self._name == other._name
        if isinstance(other, str):
            try:
                return self._name == dt.canonical(other)
            except Exception:  # noqa: BLE001 - a string that is no dtype is not equal
                return False
        return NotImplemented

    def __hash__(self):
        return hash(self._name)


__all__ = ["DataType", "DataTypeCode"]
