"""CSR sparse arrays and placeholders (TVM's ``tvm.contrib.sparse``): a CSR matrix is three
1-d arrays, ``data`` (the stored values), ``indices`` (their columns, int32) and ``indptr``
(row ``r`` holds entries ``indptr[r]:indptr[r+1]``), as ``topi.sparse`` reads them."""
from __future__ import annotations

import numpy as np

from ..errors import TepadError
from ..nd import array as nd_array
from ..tensor import placeholder as te_placeholder
from ..tir.expr import PrimExpr, Var

itype = "int32"


class CSRNDArray:
    """A CSR matrix on a device: ``CSRNDArray(dense_numpy, device)`` stores the nonzeros of a
    2-d array; ``CSRNDArray((data, indices, indptr), device, shape)`` takes the three arrays
    (NDArrays or numpy) as they are."""

    stype = "csr"

    def __init__(self, arg1, device=None, shape=None):
        if isinstance(arg1, tuple):
            if len(arg1) != 3:
                raise TepadError("CSRNDArray: a tuple must be (data, indices, indptr)")
            self.data, self.indices, self.indptr = (
                a if hasattr(a, "numpy") else nd_array(np.asarray(a), device) for a in arg1)
            if shape is None:
                raise TepadError("CSRNDArray: give shape= with (data, indices, indptr)")
            self.shape = tuple(shape)
        elif isinstance(arg1, np.ndarray):
            if arg1.ndim != 2:
                raise TepadError(f"CSRNDArray: the dense array must be 2-d, got shape "
                                 f"{arg1.shape}")
            rows, cols = np.nonzero(arg1)
            self.data = nd_array(arg1[rows, cols], device)
            self.indices = nd_array(cols.astype(itype), device)
            counts = np.count_nonzero(arg1, axis=1)
            self.indptr = nd_array(np.concatenate([[0], np.cumsum(counts)]).astype(itype),
                                   device)
            self.shape = tuple(arg1.shape) if shape is None else tuple(shape)
        else:
            raise TepadError(f"CSRNDArray: expects a 2-d numpy array or (data, indices, "
                             f"indptr), got {type(arg1).__name__}")
        self.dtype = self.data.dtype

    def numpy(self) -> np.ndarray:
        """The dense numpy array."""
        out = np.zeros(self.shape, self.dtype)
        data, indices, indptr = self.data.numpy(), self.indices.numpy(), self.indptr.numpy()
        for r in range(self.shape[0]):
            out[r, indices[indptr[r]:indptr[r + 1]]] = data[indptr[r]:indptr[r + 1]]
        return out

    asnumpy = numpy


def array(source_array, device=None, shape=None, stype="csr"):
    """A sparse array of ``source_array`` (only ``stype="csr"``)."""
    if stype != "csr":
        raise TepadError(f"contrib.sparse.array: stype {stype!r} is not supported; use 'csr'")
    return CSRNDArray(source_array, device=device, shape=shape)


class SparsePlaceholderOp:
    """The shape, dtype and name of a sparse placeholder (its arrays are in subclasses)."""

    def __init__(self, shape, nonzeros, dtype, name):
        self.shape = shape
        self.dtype = dtype
        self.name = name
        self.stype = "unknown"


class CSRPlaceholderOp(SparsePlaceholderOp):
    """A CSR placeholder: ``.data`` ``(nonzeros,)``, ``.indices`` ``(nonzeros,)`` int32 and
    ``.indptr`` ``(shape[0] + 1,)`` int32 placeholders named ``name_data`` etc."""

    def __init__(self, shape, nonzeros, dtype, name):
        super().__init__(shape, nonzeros, dtype, name)
        self.stype = "csr"
        self.data = te_placeholder((nonzeros,), dtype=dtype, name=name + "_data")
        self.indices = te_placeholder((nonzeros,), dtype=itype, name=name + "_indices")
        self.indptr = te_placeholder((self.shape[0] + 1,), dtype=itype, name=name + "_indptr")


def placeholder(shape, nonzeros=None, dtype=None, name="placeholder", stype=None):
    """A sparse placeholder of ``shape`` (2-d) with ``nonzeros`` stored values (an int or a
    Var; default a Var ``nonzeros``); only ``stype`` "csr" (the default)."""
    shape = (shape,) if isinstance(shape, PrimExpr) else tuple(shape)
    if nonzeros is None:
        nonzeros = Var("nonzeros", "int32")
    if (stype or "csr") != "csr":
        raise TepadError(f"contrib.sparse.placeholder: stype {stype!r} is not supported; "
                         "use 'csr'")
    return CSRPlaceholderOp(shape, nonzeros, dtype or "float32", name)


__all__ = ["CSRNDArray", "array", "SparsePlaceholderOp", "CSRPlaceholderOp", "placeholder",
           "itype"]
