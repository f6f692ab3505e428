"""TVM's ``topi.vision.ssd``: SSD's prior (anchor) boxes, the decoding of location
predictions against them, and the detection output (decoding then NMS)."""
from __future__ import annotations

import math

from ....errors import TepadError
from ....tensor import Tensor, compute
from ....tensor.extern import extern
from ....tir import ir_builder
from ....tir import op as tirop
from ....tir.expr import const
from .._kernel import check_tensor, launch, on_gpu
from ..nms import non_max_suppression


def _floats(v, what, n=None):
    try:
        vals = tuple(float(x) for x in v)
    except (TypeError, ValueError):
        raise TepadError(f"vision.ssd: {what} must be a sequence of numbers, got {v!r}") from None
    if not vals or (n is not None and len(vals) != n):
        raise TepadError(f"vision.ssd: {what} must hold {n or 'at least one'} numbers, got "
                         f"{v!r}")
    return vals


def multibox_prior(data, sizes=(1,), ratios=(1,), steps=(-1, -1), offsets=(0.5, 0.5),
                   clip=False):
    """SSD prior boxes for the feature map ``data`` (batch, c, h, w): for each cell (i, j)
    (centre ``((i + offsets[0]) * step_h, (j + offsets[1]) * step_w)``, a step of -1 meaning
    1 / h or 1 / w) and each of ``len(sizes) + len(ratios) - 1`` anchors (every size at
    ratio ``ratios[0]``... as TVM: every size with ratio 1, then ``sizes[0]`` with each
    further ratio r, width scaled by sqrt(r) and height by 1 / sqrt(r)), the corners
    (xmin, ymin, xmax, ymax); widths are scaled by h / w. Result (1, h * w * anchors, 4)
    float32, clipped to [0, 1] with ``clip``. A plain compute (tag ``multibox_prior``),
    scheduled as an injective operator."""
    check_tensor(data, 4, "data", "vision.ssd.multibox_prior")
    sizes, ratios = _floats(sizes, "sizes"), _floats(ratios, "ratios")
    steps, offsets = _floats(steps, "steps", 2), _floats(offsets, "offsets", 2)
    h, w = int(data.shape[2]), int(data.shape[3])
    step_h = steps[0] if steps[0] > 0 else 1.0 / h
    step_w = steps[1] if steps[1] > 0 else 1.0 / w
    half = []   # (half width, half height) of each anchor of a cell
    for k in range(len(sizes) + len(ratios) - 1):
        if k < len(sizes):
            half.append((sizes[k] * h / w / 2.0, sizes[k] / 2.0))
        else:
            r = math.sqrt(ratios[k - len(sizes) + 1])
            half.append((sizes[0] * h / w * r / 2.0, sizes[0] / r / 2.0))
    na = len(half)

    def f(v):
        return const(v, "float32")

    def pick(k, vals):
        e = f(vals[-1])
        for q in range(len(vals) - 2, -1, -1):
            e = tirop.if_then_else(k == q, f(vals[q]), e)
        return e

    def cell(_, p, c):
        i = p // (w * na)
        j = (p // na) % w
        k = p % na
        cx = (j.astype("float32") + f(offsets[1])) * f(step_w)
        cy = (i.astype("float32") + f(offsets[0])) * f(step_h)
        hw = pick(k, [x for x, _ in half])
        hh = pick(k, [y for _, y in half])
        v = tirop.if_then_else(c == 0, cx - hw, tirop.if_then_else(
            c == 1, cy - hh, tirop.if_then_else(c == 2, cx + hw, cy + hh)))
        if clip:
            v = tirop.max(f(0.0), tirop.min(f(1.0), v))
        return v

    return compute((1, h * w * na, 4), cell, name="multibox_prior", tag="multibox_prior")


def multibox_transform_loc(cls_prob, loc_pred, anchor, clip=True, threshold=0.01,
                           variances=(0.1, 0.1, 0.2, 0.2), keep_background=False):
    """Decode SSD predictions. ``cls_prob`` (batch, num_classes, num_anchors), class 0 the
    background; ``loc_pred`` (batch, num_anchors * 4) offsets (x, y, w, h) of each anchor;
    ``anchor`` (1 or batch, num_anchors, 4) corners (the first batch row is used).

    Per anchor the best class (from class 1 unless ``keep_background``) and its probability;
    a class below ``threshold`` counts as background. Anchors not background (all with
    ``keep_background``) are written, in anchor order, as rows ``[class id (minus 1 when the
    background is dropped), score, xmin, ymin, xmax, ymax]``: centre moved by
    ``offset * variance * anchor size``, size scaled by ``exp(offset * variance)``, corners
    clipped to [0, 1] with ``clip``. Returns ``[rows (batch, num_anchors, 6) (-1 past the
    count), valid_count (batch,) int32]``. One walk per batch row."""
    op = "vision.ssd.multibox_transform_loc"
    check_tensor(cls_prob, 3, "cls_prob", op)
    check_tensor(loc_pred, 2, "loc_pred", op)
    check_tensor(anchor, 3, "anchor", op, last={4})
    batch, ncls, na = (int(d) for d in cls_prob.shape)
    if tuple(int(d) for d in loc_pred.shape) != (batch, na * 4) or int(anchor.shape[1]) != na:
        raise TepadError(f"{op}: loc_pred {list(loc_pred.shape)} must be (batch, "
                         f"num_anchors * 4) and anchor {list(anchor.shape)} (1, num_anchors, "
                         f"4) for cls_prob {list(cls_prob.shape)} (batch, num_classes, "
                         "num_anchors)")
    var = _floats(variances, "variances", 4)
    dtype = loc_pred.dtype
    gpu = on_gpu()
    first = 0 if keep_background else 1

    def body(ins, outs):
        ib = ir_builder.create()
        cp, lp, an = (ib.buffer_ptr(b) for b in ins)
        o, cnt_out = (ib.buffer_ptr(b) for b in outs)

        def f(v):
            return const(v, dtype)

        with launch(ib, batch, gpu, "i") as i:
            cnt = ib.allocate("int32", (1,), name="cnt", scope="local")
            best = ib.allocate(dtype, (1,), name="best", scope="local")
            cid = ib.allocate("int32", (1,), name="cid", scope="local")
            cnt[0] = const(0, "int32")
            with ib.for_range(0, na, name="j") as j:
                best[0] = f(-1.0)
                cid[0] = const(0, "int32")
                for k in range(first, ncls):
                    p = cp[(i * ncls + k) * na + j].astype(dtype)
                    with ib.if_scope(p > best[0]):
                        best[0] = p
                        cid[0] = const(k, "int32")
                with ib.if_scope(tirop.all(cid[0] > 0, best[0] < f(float(threshold)))):
                    cid[0] = const(0, "int32")
                cond = cid[0] >= 0 if keep_background else cid[0] > 0
                with ib.if_scope(cond):
                    row = (i * na + cnt[0]) * 6
                    o[row] = (cid[0] - (0 if keep_background else 1)).astype(dtype)
                    o[row + 1] = best[0]
                    al, at, ar, ab = (an[j * 4 + q].astype(dtype) for q in range(4))
                    px, py, pw, ph = (lp[i * na * 4 + j * 4 + q] for q in range(4))
                    aw, ah = ar - al, ab - at
                    ox = px * f(var[0]) * aw + (al + ar) / f(2.0)
                    oy = py * f(var[1]) * ah + (at + ab) / f(2.0)
                    ow = tirop.exp(pw * f(var[2])) * aw / f(2.0)
                    oh = tirop.exp(ph * f(var[3])) * ah / f(2.0)
                    for q, v in enumerate((ox - ow, oy - oh, ox + ow, oy + oh)):
                        if clip:
                            v = tirop.max(f(0.0), tirop.min(f(1.0), v))
                        o[row + 2 + q] = v
                    cnt[0] = cnt[0] + 1
            with ib.for_range(cnt[0], na, name="j") as j:
                for q in range(6):
                    o[(i * na + j) * 6 + q] = f(-1.0)
            cnt_out[i] = cnt[0]
        return ib.get()

    return extern([(batch, na, 6), (batch,)], [cls_prob, loc_pred, anchor], body,
                  name="multibox_transform_loc", dtype=[dtype, "int32"],
                  tag="multibox_transform_loc")


def multibox_detection(cls_prob, loc_pred, anchor, clip=True, threshold=0.01,
                       nms_threshold=0.5, force_suppress=False, variances=(0.1, 0.1, 0.2, 0.2),
                       nms_topk=-1):
    """SSD's detection output: ``multibox_transform_loc`` then ``non_max_suppression``
    (IoU ``nms_threshold``, ``nms_topk`` best kept before it, classes apart unless
    ``force_suppress``). Result (batch, num_anchors, 6) rows ``[class id, score, xmin, ymin,
    xmax, ymax]`` by descending score, suppressed and empty rows -1."""
    if not isinstance(cls_prob, Tensor):
        raise TepadError(f"vision.ssd.multibox_detection: cls_prob must be a te.Tensor, got "
                         f"{cls_prob!r}")
    rows, count = multibox_transform_loc(cls_prob, loc_pred, anchor, clip, threshold, variances)
    return non_max_suppression(rows, count, None, max_output_size=-1,
                               iou_threshold=nms_threshold, force_suppress=force_suppress,
                               top_k=nms_topk, return_indices=False)


__all__ = ["multibox_prior", "multibox_transform_loc", "multibox_detection"]
