"""``topi.nn.nll_loss``: the negative log-likelihood loss of TVM (and PyTorch)."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import const


def nll_loss(predictions, targets, weights, reduction="mean", ignore_index=-100):
    """``-predictions[n, targets[n, d..], d..] * weights[targets[n, d..]]`` per element
    (0 where the target is ``ignore_index``). ``predictions`` is (N, C, d...) or (C,),
    ``targets`` (N, d...) or 0-d, ``weights`` (C,). ``reduction``: "none" (the per-element
    losses), "sum", or "mean" (the sum divided by the sum of the weights used)."""
    for nm, t in (("predictions", predictions), ("targets", targets), ("weights", weights)):
        if not isinstance(t, Tensor):
            raise TepadError(f"topi.nn.nll_loss: {nm} must be a te.Tensor, got {t!r}")
    if reduction not in ("mean", "sum", "none"):
        raise TepadError(f"topi.nn.nll_loss: reduction must be 'mean', 'sum' or 'none', got "
                         f"{reduction!r}")
    single = len(predictions.shape) == 1
    dtype = predictions.dtype
    zero = const(0, dtype)

    def pick(i):
        t = targets[i].astype("int32")
        keep = t != ignore_index
        safe = tirop.if_then_else(keep, t, const(0, "int32"))
        p = predictions[(safe,)] if single else predictions[(i[0], safe) + tuple(i[1:])]
        return keep, p, weights[safe]

    loss = compute(targets.shape, lambda *i: tirop.if_then_else(
        pick(i)[0], -pick(i)[1] * pick(i)[2], zero), name="nll_loss", tag="injective")
    if reduction == "none":
        return loss
    rs = [reduce_axis((0, e), name=f"r{k}") for k, e in enumerate(targets.shape)]
    total = compute((), lambda: te_op.sum(loss[tuple(rs)], axis=rs) if rs else loss[()],
                    name="nll_loss_sum", tag="comm_reduce")
    if reduction == "sum":
        return total
    ws = [reduce_axis((0, e), name=f"w{k}") for k, e in enumerate(targets.shape)]

    def used(*i):
        keep, _, w = pick(i)
        return tirop.if_then_else(keep, w, zero)
    weight_sum = compute((), lambda: te_op.sum(used(*ws), axis=ws) if ws else used(),
                         name="nll_loss_weight_sum", tag="comm_reduce")
    return compute((), lambda: total[()] / weight_sum[()], name="nll_loss_mean",
                   tag="elemwise")


__all__ = ["nll_loss"]
