"""``topi.nn.softmax`` (four stages, as TVM builds it), ``fast_softmax`` (the same with
``fast_exp``) and ``log_softmax``."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ..math import _fast_exp_expr


def softmax(x: Tensor, axis=-1) -> Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``: four stages as TVM builds them
    (``T_softmax_maxelem``, ``T_softmax_exp``, ``T_softmax_expsum``, output
    ``T_softmax_norm`` tagged ``softmax_output``)."""
    return _softmax(x, axis, tirop.exp, "softmax")


def fast_softmax(x: Tensor, axis=-1) -> Tensor:
    """``softmax`` with ``topi.fast_exp``'s approximation of the exponential (relative error
    below 1e-6; it vectorizes where the exact ``exp`` is a libm call per lane)."""
    return _softmax(x, axis, _fast_exp_expr, "fast_softmax")


def softmax_common(x: Tensor, axis, use_fast_exp) -> Tensor:
    """The four stages shared by ``softmax`` and ``fast_softmax`` (``use_fast_exp``: the
    exponential approximated by ``fast_exp``); the output is ``T_softmax_norm``."""
    return _softmax(x, axis, _fast_exp_expr if use_fast_exp else tirop.exp,
                    "fast_softmax" if use_fast_exp else "softmax")


def _softmax(x, axis, exp, what):
    n = len(x.shape)
    if not -n <= axis < n:
        raise TepadError(f"{what}: axis {axis} is out of range for {x.name} ({n} dims)")
    axis %= n
    reduced = [s for k, s in enumerate(x.shape) if k != axis]
    k1 = reduce_axis((0, x.shape[axis]), name="k1")
    k2 = reduce_axis((0, x.shape[axis]), name="k2")

    def at(idx, v):
        full = list(idx[:axis]) + [v] + list(idx[axis:])
        return tuple(full)

    maxelem = compute(tuple(reduced), lambda *i: te_op.max(x[at(i, k1)], axis=k1),
                      name="T_softmax_maxelem")
    ex = compute(x.shape, lambda *i: exp(x[i] - maxelem[i[:axis] + i[axis + 1:]]),
                 name="T_softmax_exp")
    expsum = compute(tuple(reduced), lambda *i: te_op.sum(ex[at(i, k2)], axis=k2),
                     name="T_softmax_expsum")
    return compute(x.shape, lambda *i: ex[i] / expsum[i[:axis] + i[axis + 1:]],
                   name="T_softmax_norm", tag="softmax_output")



def log_softmax(x: Tensor, axis=-1) -> Tensor:
    """``x - max - log(sum(exp(x - max)))`` along ``axis`` (stages ``T_softmax_maxelem``,
    ``T_softmax_expsum`` and the output ``T_log_softmax``, tag ``log_softmax_output``)."""
    n = len(x.shape)
    if not -n <= axis < n:
        raise TepadError(f"log_softmax: axis {axis} is out of range for {x.name} ({n} dims)")
    axis %= n
    reduced = [s for k, s in enumerate(x.shape) if k != axis]
    k1 = reduce_axis((0, x.shape[axis]), name="k1")
    k2 = reduce_axis((0, x.shape[axis]), name="k2")

    def at(idx, v):
        return tuple(idx[:axis]) + (v,) + tuple(idx[axis:])

    def row(i):
        return i[:axis] + i[axis + 1:]
    maxelem = compute(tuple(reduced), lambda *i: te_op.max(x[at(i, k1)], axis=k1),
                      name="T_softmax_maxelem")
    expsum = compute(tuple(reduced), lambda *i: te_op.sum(
        tirop.exp(x[at(i, k2)] - maxelem[i]), axis=k2), name="T_softmax_expsum")
    return compute(x.shape, lambda *i: x[i] - maxelem[row(i)] - tirop.log(expsum[row(i)]),
                   name="T_log_softmax", tag="log_softmax_output")


__all__ = ["softmax_common", "softmax", "log_softmax", "fast_softmax"]
