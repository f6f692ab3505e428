"""TVM's ``topi.arm_cpu.matmul``: the matmul compute of the SME (Scalable Matrix Extension)
strategy. The compute is checked as TVM checks it and is an ordinary ``T_matmul_*`` stage;
the SME schedule needs ARM's scalable matrix intrinsics and a ``tir.Schedule``, which tepad
does not generate, so ``tir_schedule_matmul_sme`` raises a TepadError saying so (schedule
the stage with ``topi.arm_cpu.schedule_matmul`` instead)."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import compute, reduce_axis
from ...tensor import operation as te_op
from ..utils import get_const_tuple


class SMEUnsupported(TepadError, AssertionError):
    """An SME matmul configuration TVM's compute rejects (an AssertionError there)."""


def compute_matmul_sme(data_a, data_b, bias=None, out_dtype=None, transpose_a=False,
                       transpose_b=True):
    """``data_a @ op(data_b)`` as the SME strategy defines it: ``data_a`` must not be
    transposed, and a float16 ``data_b`` must be (both SMEUnsupported otherwise). Stage
    ``T_matmul_N{N|T}`` with attribute ``schedule_type = "sme"``; ``bias`` is unused, as in
    TVM."""
    if bool(transpose_a):
        raise SMEUnsupported("compute_matmul_sme: Transposed lhs not currently supported.")
    if data_b.dtype == "float16" and not bool(transpose_b):
        raise SMEUnsupported("compute_matmul_sme: Rhs must be transposed when dtype is "
                             "float16.")
    transpose_b = bool(transpose_b)
    m, k_a = get_const_tuple(data_a.shape)
    n, k_b = get_const_tuple(data_b.shape)[::1 if transpose_b else -1]
    if k_a != k_b:
        raise TepadError(f"compute_matmul_sme: {data_a.name} has {k_a} columns but "
                         f"{data_b.name} gives {k_b} rows to reduce over")
    out_dtype = out_dtype or data_a.dtype
    k = reduce_axis((0, k_a), name="k")

    def body(i, j):
        b = data_b[j, k] if transpose_b else data_b[k, j]
        return te_op.sum(data_a[i, k].astype(out_dtype) * b.astype(out_dtype), axis=k)
    return compute((m, n), body, name="T_matmul_NT" if transpose_b else "T_matmul_NN",
                   tag="matmul", attrs={"schedule_type": "sme"})


def tir_schedule_matmul_sme(sch):
    """Not available: the SME schedule is a TIR-schedule program over ARM scalable matrix
    intrinsics, which tepad neither schedules nor generates."""
    raise TepadError("topi.arm_cpu.tir_schedule_matmul_sme: tepad generates no ARM SME "
                     "(scalable matrix) intrinsics and has no tir.Schedule; schedule the "
                     "T_matmul stage with topi.arm_cpu.schedule_matmul")


__all__ = ["compute_matmul_sme", "tir_schedule_matmul_sme", "SMEUnsupported"]
