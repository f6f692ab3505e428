"""R-CNN's region proposal layer (TVM's ``topi.vision.rcnn.proposal``)."""
from __future__ import annotations

import math

from ....errors import TepadError
from ....tensor.extern import extern
from ....tir import ir_builder
from ....tir import op as tirop
from ....tir.expr import const
from .._kernel import box_iou, check_tensor, launch, on_gpu


def _base_anchor(ratio, scale, base):
    """Corners of the anchor of ``ratio`` (height / width) and ``scale`` centred on the
    ``base`` x ``base`` cell at the origin (pixel-inclusive sides, sizes rounded as
    Faster R-CNN's generate_anchors does)."""
    ctr = 0.5 * (base - 1.0)
    w0 = math.floor(math.sqrt(math.floor(base * base / ratio)) + 0.5)
    h0 = math.floor(w0 * ratio + 0.5)
    w, h = w0 * scale, h0 * scale
    return (ctr - 0.5 * (w - 1.0), ctr - 0.5 * (h - 1.0), ctr + 0.5 * (w - 1.0),
            ctr + 0.5 * (h - 1.0))


def proposal(cls_prob, bbox_pred, im_info, scales, ratios, feature_stride, threshold,
             rpn_pre_nms_top_n, rpn_post_nms_top_n, rpn_min_size, iou_loss):
    """Region proposals of a Faster R-CNN RPN.

    ``cls_prob`` (batch, 2 * A, h, w): background then foreground scores of the A =
    ``len(scales) * len(ratios)`` anchors (ratio-major) of each cell; ``bbox_pred`` (batch,
    4 * A, h, w) their deltas; ``im_info`` (batch, 3): image height, width, scale.

    Each anchor, shifted to its cell (``feature_stride`` pixels a cell), is moved by its
    deltas (``iou_loss``: added to the corners; else centre / log-size regression), clipped
    to the image; a cell outside the image's feature extent scores -1, and a box narrower or
    lower than ``rpn_min_size * scale`` is widened by that much on each side and scores -1.
    The boxes are sorted by descending score (ties: anchor order), the best
    ``rpn_pre_nms_top_n`` (all when <= 0) go through greedy NMS (IoU > ``threshold``
    suppresses, pixel-inclusive areas), and the kept ones, repeated cyclically if fewer,
    fill ``rpn_post_nms_top_n`` rows per image. Result (batch * rpn_post_nms_top_n, 5) rows
    ``[batch index, x1, y1, x2, y2]`` (an image with no box keeps its rows as allocated).

    Stages: the box decoding (one thread per cell), a rank argsort (one per box), the NMS
    walk and the output walk (one thread per image)."""
    op = "vision.rcnn.proposal"
    check_tensor(cls_prob, 4, "cls_prob", op)
    check_tensor(bbox_pred, 4, "bbox_pred", op)
    check_tensor(im_info, 2, "im_info", op, last={3})
    scales, ratios = [float(s) for s in scales], [float(r) for r in ratios]
    na = len(scales) * len(ratios)
    batch, c2, h, w = (int(d) for d in cls_prob.shape)
    if c2 != 2 * na or tuple(int(d) for d in bbox_pred.shape) != (batch, 4 * na, h, w):
        raise TepadError(f"{op}: with {na} anchors a cell cls_prob must be (batch, {2 * na}, "
                         f"h, w) and bbox_pred (batch, {4 * na}, h, w), got "
                         f"{list(cls_prob.shape)} and {list(bbox_pred.shape)}")
    for nm, v in (("rpn_post_nms_top_n", rpn_post_nms_top_n), ("feature_stride", feature_stride)):
        if not isinstance(v, int) or v <= 0:
            raise TepadError(f"{op}: {nm} must be a positive int, got {v!r}")
    nbox = h * w * na
    pre = min(int(rpn_pre_nms_top_n), nbox) if rpn_pre_nms_top_n > 0 else nbox
    post = int(rpn_post_nms_top_n)
    dtype = bbox_pred.dtype
    gpu = on_gpu()
    stride = float(feature_stride)
    anchors = [_base_anchor(ratios[k // len(scales)], scales[k % len(scales)], stride)
               for k in range(na)]

    def f(v):
        return const(float(v), dtype)

    def decode(ins, outs):
        ib = ir_builder.create()
        sc, dl, info = (ib.buffer_ptr(b) for b in ins)
        o = ib.buffer_ptr(outs[0])
        with launch(ib, batch * h * w, gpu, "t") as t:
            x = t % w
            y = (t // w) % h
            b = t // (w * h)
            im_h, im_w, im_s = info[b * 3], info[b * 3 + 1], info[b * 3 + 2]
            xs = x.astype(dtype) * f(stride)
            ys = y.astype(dtype) * f(stride)
            for k in range(na):
                x1, y1, x2, y2 = (f(anchors[k][0]) + xs, f(anchors[k][1]) + ys,
                                  f(anchors[k][2]) + xs, f(anchors[k][3]) + ys)
                dx, dy, dw, dh = (dl[(((b * na + k) * 4 + q) * h + y) * w + x]
                                  for q in range(4))
                if iou_loss:
                    p = (x1 + dx, y1 + dy, x2 + dw, y2 + dh)
                else:
                    bw, bh = x2 - x1 + f(1), y2 - y1 + f(1)
                    cx = dx * bw + x1 + f(0.5) * (bw - f(1))
                    cy = dy * bh + y1 + f(0.5) * (bh - f(1))
                    pw, ph = tirop.exp(dw) * bw, tirop.exp(dh) * bh
                    p = (cx - f(0.5) * (pw - f(1)), cy - f(0.5) * (ph - f(1)),
                         cx + f(0.5) * (pw - f(1)), cy + f(0.5) * (ph - f(1)))
                lim = (im_w, im_h, im_w, im_h)
                p = [tirop.max(tirop.min(v, lim[q] - f(1)), f(0)) for q, v in enumerate(p)]
                inside = tirop.all(y < (im_h / f(stride)).astype("int32"),
                                   x < (im_w / f(stride)).astype("int32"))
                score = tirop.if_then_else(inside, sc[((b * 2 * na + na + k) * h + y) * w + x],
                                           f(-1))
                row = (((b * h + y) * w + x) * na + k) * 5
                min_size = im_s * f(rpn_min_size)
                small = tirop.any(p[2] - p[0] + f(1) < min_size, p[3] - p[1] + f(1) < min_size)
                grow = tirop.if_then_else(small, min_size / f(2), f(0))
                o[row] = p[0] - grow
                o[row + 1] = p[1] - grow
                o[row + 2] = p[2] + grow
                o[row + 3] = p[3] + grow
                o[row + 4] = tirop.if_then_else(small, f(-1), score)
        return ib.get()

    bbox = extern((batch, nbox, 5), [cls_prob, bbox_pred, im_info], decode,
                  name="proposal_bbox", dtype=dtype, tag="proposal_bbox")

    def rank(ins, outs):
        ib = ir_builder.create()
        bx, o = ib.buffer_ptr(ins[0]), ib.buffer_ptr(outs[0])
        with launch(ib, batch * nbox, gpu, "t") as t:
            b = t // nbox
            j = t % nbox
            r = ib.allocate("int32", (1,), name="rank", scope="local")
            r[0] = const(0, "int32")
            sj = bx[(b * nbox + j) * 5 + 4]
            with ib.for_range(0, nbox, name="k") as k:
                sk = bx[(b * nbox + k) * 5 + 4]
                with ib.if_scope(tirop.any(sk > sj, tirop.all(sk == sj, k < j))):
                    r[0] = r[0] + 1
            o[b * nbox + r[0]] = j
        return ib.get()

    order = extern((batch, nbox), [bbox], rank, name="proposal_argsort", dtype="int32",
                   tag="proposal_argsort")

    # NMS over the best `pre` boxes: removed[b, q] for sorted position q
    def nms(ins, outs):
        ib = ir_builder.create()
        bx, srt = ib.buffer_ptr(ins[0]), ib.buffer_ptr(ins[1])
        rm = ib.buffer_ptr(outs[0])

        def corner(b, q, e):
            return bx[(b * nbox + srt[b * nbox + q]) * 5 + e]

        with launch(ib, batch, gpu, "b") as b:
            with ib.for_range(0, pre, name="q") as q:
                rm[b * pre + q] = const(0, "int32")
            with ib.for_range(0, pre, name="l") as l:
                with ib.if_scope(rm[b * pre + l] == 0):
                    a = [corner(b, l, e) for e in range(4)]
                    with ib.for_range(l + 1, pre, name="q") as q:
                        o = [corner(b, q, e) for e in range(4)]
                        with ib.if_scope(box_iou(*a, *o, dtype, plus_one=True) > f(threshold)):
                            rm[b * pre + q] = const(1, "int32")
        return ib.get()

    removed = extern((batch, pre), [bbox, order], nms, name="proposal_nms", dtype="int32",
                     tag="proposal_nms")

    def output(ins, outs):
        ib = ir_builder.create()
        bx, srt, rm = (ib.buffer_ptr(b) for b in ins)
        o = ib.buffer_ptr(outs[0])
        with launch(ib, batch, gpu, "b") as b:
            kept = ib.allocate("int32", (1,), name="kept", scope="local")
            pos = ib.allocate("int32", (1,), name="pos", scope="local")
            kept[0] = const(0, "int32")
            with ib.for_range(0, pre, name="q") as q:
                with ib.if_scope(rm[b * pre + q] == 0):
                    kept[0] = kept[0] + 1
            with ib.if_scope(kept[0] > 0):
                pos[0] = const(0, "int32")
                rounds = (post + kept[0] - 1) // kept[0]
                with ib.for_range(0, rounds, name="rep"):
                    with ib.for_range(0, pre, name="q") as q:
                        with ib.if_scope(tirop.all(pos[0] < post, rm[b * pre + q] == 0)):
                            row = (b * post + pos[0]) * 5
                            o[row] = b.astype(dtype)
                            for e in range(4):
                                o[row + 1 + e] = bx[(b * nbox + srt[b * nbox + q]) * 5 + e]
                            pos[0] = pos[0] + 1
        return ib.get()

    return extern((batch * post, 5), [bbox, order, removed], output, name="proposal",
                  dtype=dtype, tag="proposal")


__all__ = ["proposal"]
