"""Binary neural-network operators (TVM's ``topi.nn.bnn``): ``binarize_pack`` packs signs
into 32-bit words, ``binary_dense`` multiplies such packed +1/-1 matrices with xor and
popcount."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import IntImm, const


def binarize_pack(data: Tensor, axis=None, name="PackedInput") -> Tensor:
    """``data``'s signs packed 32 to a ``uint32`` word along ``axis`` (default the last, its
    extent a constant multiple of 32): bit ``31 - j`` of word ``q`` is 1 where
    ``data[.., 32 * q + j, ..] >= 0``. Stage ``name``, tag ``binarize_pack``."""
    n = len(data.shape)
    axis = n - 1 if axis is None else axis
    if not -n <= axis < n:
        raise TepadError(f"binarize_pack: axis {axis} is out of range for {data.name} "
                         f"({n} dims)")
    axis %= n
    ext = data.shape[axis]
    if not isinstance(ext, IntImm) or ext.value % 32:
        raise TepadError(f"binarize_pack: axis {axis} of {data.name} ({ext}) must be a "
                         "constant multiple of 32")
    shape = tuple(ext.value // 32 if k == axis else s for k, s in enumerate(data.shape))

    def body(*idx):
        word = const(0, "uint32")
        for j in range(32):
            at = tuple(i * 32 + j if k == axis else i for k, i in enumerate(idx))
            sign = (data[at] >= const(0, data.dtype)).astype("uint32")
            word = word | (sign << const(31 - j, "uint32"))
        return word
    return compute(shape, body, name=name, tag="binarize_pack")


def binary_dense(data: Tensor, weight: Tensor) -> Tensor:
    """The product ``A @ B.T`` of +1/-1 matrices given packed by ``binarize_pack``: data
    (batch, in_words) and weight (out, in_words), both ``uint32``. A reduction stage tagged
    ``binary_dense`` counts the differing signs (``popcount(a ^ b)``) and the float32 output
    (tag ``elemwise``) is ``32 * in_words - 2 * count``."""
    for t, nm in ((data, "data"), (weight, "weight")):
        if not isinstance(t, Tensor) or len(t.shape) != 2 or t.dtype != "uint32":
            raise TepadError(f"binary_dense: {nm} must be a 2-d uint32 te.Tensor (packed by "
                             f"binarize_pack), got {t!r}")
    batch, in_dim = data.shape
    out_dim = weight.shape[0]
    k = reduce_axis((0, in_dim), name="k")
    count = compute((batch, out_dim), lambda i, j: te_op.sum(
        tirop.popcount(data[i, k] ^ weight[j, k]), axis=k), name="tensor", tag="binary_dense")
    total = (in_dim * 32).astype("float32") if not isinstance(in_dim, IntImm) else \
        const(in_dim.value * 32, "float32")
    return compute((batch, out_dim), lambda i, j: total - const(2.0, "float32") *
                   count[i, j].astype("float32"), name="tensor", tag="elemwise")


__all__ = ["binarize_pack", "binary_dense"]
