"""TVM's ``topi.vision`` non-maximum suppression: ``get_valid_counts``,
``non_max_suppression`` (MXNet / SSD style, boxes with class id and score in one row) and
``all_class_non_max_suppression`` (ONNX / TensorFlow style, per-class scores).

Each is a chain of ``te.extern`` stages (see ``_kernel``): a stable descending argsort of
the scores (one thread per box: a box's rank is the number of boxes before it in the
order), then the greedy suppression walk (one thread per batch row, or per (batch, class)
row), then, where the result is compacted, a compaction walk. Invalid entries are -1."""
from __future__ import annotations

from ...errors import TepadError
from ...lower.pipeline import SECONDARY_OUTPUT
from ...tensor.extern import extern
from ...tir import ir_builder
from ...tir import op as tirop
from ...tir.expr import const
from ._kernel import box_iou, check_tensor, corners, launch, on_gpu, scalar_arg


def _rank_sort(rows, n, score_at, valid_at, gpu):
    """An extern body writing, per row, the stable descending order of the first
    ``valid_at(row)`` scores (``score_at(row, k)``) into out[row, 0:valid]; positions past
    the valid count hold their own index."""
    def body(ins, outs):
        ib = ir_builder.create()
        ptrs = [ib.buffer_ptr(b) for b in ins]
        out = ib.buffer_ptr(outs[0])
        with launch(ib, rows * n, gpu, "t") as t:
            r = t // n
            j = t % n
            vc = valid_at(ptrs, r)
            with ib.if_scope(j < vc):
                rank = ib.allocate("int32", (1,), name="rank", scope="local")
                rank[0] = const(0, "int32")
                sj = score_at(ptrs, r, j)
                with ib.for_range(0, vc, name="k") as k:
                    sk = score_at(ptrs, r, k)
                    with ib.if_scope(tirop.any(sk > sj, tirop.all(sk == sj, k < j))):
                        rank[0] = rank[0] + 1
                out[r * n + rank[0]] = j
            with ib.else_scope():
                out[r * n + j] = j
        return ib.get()
    return body


def get_valid_counts(data, score_threshold=0, id_index=0, score_index=1):
    """Move the boxes of ``data`` (batch, num_anchors, 5 or 6) whose score (element
    ``score_index``) is above ``score_threshold`` and, when ``id_index >= 0``, whose class id
    is not negative, to the top of each batch row, keeping their order.

    Returns ``[valid_count (batch,) int32, out (like data; rows past the count are -1),
    out_indices (batch, num_anchors) int32: the row in ``data`` of each output row, -1
    past the count]``. ``score_threshold``: a number, a PrimExpr or a one-element tensor."""
    op = "vision.get_valid_counts"
    check_tensor(data, 3, "data", op)
    batch, n, elem = (int(d) for d in data.shape)
    for nm, v in (("score_index", score_index), ("id_index", id_index)):
        if not isinstance(v, int) or v >= elem or (nm == "score_index" and v < 0):
            raise TepadError(f"{op}: {nm} must be an int index into the last axis (size "
                             f"{elem}), got {v!r}")
    dtype = data.dtype
    extra, thr = scalar_arg(score_threshold, dtype, "score_threshold", op)
    gpu = on_gpu()

    def body(ins, outs):
        ib = ir_builder.create()
        d = ib.buffer_ptr(ins[0])
        rest = [ib.buffer_ptr(b) for b in ins[1:]]
        cnt_out, o, idx = (ib.buffer_ptr(b) for b in outs)
        threshold = thr(rest)
        with launch(ib, batch, gpu, "i") as i:
            cnt = ib.allocate("int32", (1,), name="cnt", scope="local")
            cnt[0] = const(0, "int32")
            with ib.for_range(0, n, name="j") as j:
                row = (i * n + j) * elem
                keep = d[row + score_index] > threshold
                if id_index >= 0:
                    keep = tirop.all(keep, d[row + id_index] >= const(0, dtype))
                with ib.if_scope(keep):
                    for k in range(elem):
                        o[(i * n + cnt[0]) * elem + k] = d[row + k]
                    idx[i * n + cnt[0]] = j
                    cnt[0] = cnt[0] + 1
                with ib.if_scope(j >= cnt[0]):
                    for k in range(elem):
                        o[row + k] = const(-1, dtype)
                    idx[i * n + j] = const(-1, "int32")
            cnt_out[i] = cnt[0]
        return ib.get()

    return extern([(batch,), (batch, n, elem), (batch, n)], [data] + extra, body,
                  name="get_valid_counts", dtype=["int32", dtype, "int32"],
                  tag="get_valid_counts")


def non_max_suppression(data, valid_count, indices, max_output_size=-1, iou_threshold=0.5,
                        force_suppress=False, top_k=-1, coord_start=2, score_index=1,
                        id_index=0, return_indices=True, invalid_to_bottom=False):
    """Greedy non-maximum suppression per batch row of ``data`` (batch, num_anchors, 5 or 6),
    whose first ``valid_count[b]`` rows are the candidates (e.g. ``get_valid_counts``'s
    outputs). ``indices`` (batch, num_anchors) int32, the rows' places in the original data,
    is read only with ``return_indices`` (it may be None otherwise).

    The candidates are ordered by descending score (ties: lower row first), only the
    ``top_k`` best kept when ``top_k > 0``; a candidate with a positive score is kept
    unless a kept box before it (of the same class unless ``force_suppress`` or
    ``id_index < 0``) overlaps it with IoU >= ``iou_threshold``; at most
    ``max_output_size`` boxes are kept when it is >= 0. With ``iou_threshold <= 0`` the
    candidates are returned in their input order, unsuppressed.

    Returns (``return_indices=False``) the sorted rows (batch, num_anchors, elem) with the
    suppressed and invalid rows set to -1 (with ``invalid_to_bottom``, moved after the
    others, which keep their order; a candidate of score <= 0 is neither kept nor
    suppressed: it stays, uncounted), or (``return_indices=True``) ``[box_indices (batch,
    num_anchors) int32, valid_box_count (batch, 1) int32]``: the kept boxes' values of
    ``indices`` (their rows in the original data), compacted to the top, -1 after."""
    op = "vision.non_max_suppression"
    check_tensor(data, 3, "data", op)
    check_tensor(valid_count, 1, "valid_count", op)
    batch, n, elem = (int(d) for d in data.shape)
    if return_indices:
        check_tensor(indices, 2, "indices", op)
    for nm, v in (("coord_start", coord_start), ("score_index", score_index),
                  ("id_index", id_index), ("top_k", top_k)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TepadError(f"{op}: {nm} must be an int, got {v!r}")
    if not 0 <= coord_start <= elem - 4 or not 0 <= score_index < elem or id_index >= elem:
        raise TepadError(f"{op}: coord_start {coord_start}, score_index {score_index} and "
                         f"id_index {id_index} must index the last axis (size {elem})")
    dtype = data.dtype
    gpu = on_gpu()

    order = extern((batch, n), [data, valid_count],
                   _rank_sort(batch, n,
                              lambda p, r, k: p[0][(r * n + k) * elem + score_index],
                              lambda p, r: p[1][r], gpu),
                   name="nms_argsort", dtype="int32", tag="nms_argsort")

    ins = [data, order, valid_count]
    extra_m, max_out = scalar_arg(max_output_size, "int32", "max_output_size", op)
    extra_t, iou_thr = scalar_arg(iou_threshold, dtype, "iou_threshold", op)
    ins = ins + extra_m + extra_t

    # The walk keeps, per output position, the data row it holds (-1: none); the rows
    # themselves are gathered by a later stage, so one tensor carries the whole state.
    def body(bufs, outs):
        ib = ir_builder.create()
        p = [ib.buffer_ptr(b) for b in bufs]
        d, srt, vcnt = p[0], p[1], p[2]
        max_o = max_out(p[3:3 + len(extra_m)])
        thr = iou_thr(p[3 + len(extra_m):])
        box = ib.buffer_ptr(outs[0])
        zero = const(0, dtype)
        none = const(-1, "int32")

        def at(i, j, q):
            return d[(i * n + box[i * n + j]) * elem + q]

        with launch(ib, batch, gpu, "i") as i:
            vc = vcnt[i]
            with ib.if_scope(thr > zero):
                nkeep = vc if top_k <= 0 else tirop.min(vc, const(top_k, "int32"))
                with ib.for_range(0, nkeep, name="j") as j:
                    box[i * n + j] = srt[i * n + j]
                with ib.for_range(nkeep, vc, name="j") as j:
                    box[i * n + j] = none
                kept = ib.allocate("int32", (1,), name="kept", scope="local")
                ok = ib.allocate("int32", (1,), name="ok", scope="local")
                kept[0] = const(0, "int32")
                with ib.for_range(0, vc, name="j") as j:
                    with ib.if_scope(box[i * n + j] >= 0):
                        with ib.if_scope(kept[0] == max_o):
                            box[i * n + j] = none
                        with ib.else_scope():
                            with ib.if_scope(at(i, j, score_index) > zero):
                                ok[0] = const(1, "int32")
                                a = corners(lambda q: at(i, j, coord_start + q))
                                with ib.for_range(0, j, name="k") as k:
                                    cond = [ok[0] == 1, box[i * n + k] >= 0]
                                    with ib.if_scope(tirop.all(*cond)):
                                        c2 = [at(i, k, score_index) > zero]
                                        if id_index >= 0:
                                            c2.append(at(i, k, id_index) >= zero)
                                            if not force_suppress:
                                                c2.append(at(i, j, id_index) == at(i, k, id_index))
                                        with ib.if_scope(tirop.all(*c2)):
                                            b = corners(lambda q: at(i, k, coord_start + q))
                                            with ib.if_scope(box_iou(*a, *b, dtype) >= thr):
                                                ok[0] = const(0, "int32")
                                with ib.if_scope(ok[0] == 0):
                                    box[i * n + j] = none
                                with ib.else_scope():
                                    kept[0] = kept[0] + 1
            with ib.else_scope():
                with ib.for_range(0, vc, name="j") as j:
                    box[i * n + j] = j
            with ib.for_range(vc, n, name="j") as j:
                box[i * n + j] = none
        return ib.get()

    box = extern((batch, n), ins, body, name="nms", dtype="int32", tag="nms")
    if return_indices:
        return [_compact_indices(box, indices, gpu), _count_kept(box, indices, gpu)]
    return _gather_rows(data, box, invalid_to_bottom, gpu)


def _compact_indices(box, indices, gpu):
    batch, n = (int(d) for d in box.shape)

    def body(ins, outs):
        ib = ir_builder.create()
        b, idx, o = ib.buffer_ptr(ins[0]), ib.buffer_ptr(ins[1]), ib.buffer_ptr(outs[0])
        with launch(ib, batch, gpu, "i") as i:
            cnt = ib.allocate("int32", (1,), name="cnt", scope="local")
            cnt[0] = const(0, "int32")
            with ib.for_range(0, n, name="j") as j:
                with ib.if_scope(b[i * n + j] >= 0):
                    with ib.if_scope(idx[i * n + b[i * n + j]] >= 0):
                        o[i * n + cnt[0]] = idx[i * n + b[i * n + j]]
                        cnt[0] = cnt[0] + 1
            with ib.for_range(cnt[0], n, name="j") as j:
                o[i * n + j] = const(-1, "int32")
        return ib.get()
    return extern((batch, n), [box, indices], body, name="nms_indices", dtype="int32",
                  tag="nms_indices")


def _count_kept(box, indices, gpu):
    batch, n = (int(d) for d in box.shape)

    def body(ins, outs):
        ib = ir_builder.create()
        b, idx, o = ib.buffer_ptr(ins[0]), ib.buffer_ptr(ins[1]), ib.buffer_ptr(outs[0])
        with launch(ib, batch, gpu, "i") as i:
            cnt = ib.allocate("int32", (1,), name="cnt", scope="local")
            cnt[0] = const(0, "int32")
            with ib.for_range(0, n, name="j") as j:
                with ib.if_scope(b[i * n + j] >= 0):
                    with ib.if_scope(idx[i * n + b[i * n + j]] >= 0):
                        cnt[0] = cnt[0] + 1
            o[i] = cnt[0]
        return ib.get()
    # TVM programs build the NMS indices without this count: a by-product build may omit
    return extern((batch, 1), [box, indices], body, name="nms_valid_box_count",
                  dtype="int32", tag="nms_valid_box_count",
                  attrs={SECONDARY_OUTPUT: True})


def _gather_rows(data, box, to_top, gpu):
    """The rows of ``data`` named by ``box`` (-1: a row of -1), in place or (``to_top``)
    the kept ones moved to the top."""
    batch, n, elem = (int(d) for d in data.shape)
    dtype = data.dtype

    def body(ins, outs):
        ib = ir_builder.create()
        d, b, o = ib.buffer_ptr(ins[0]), ib.buffer_ptr(ins[1]), ib.buffer_ptr(outs[0])
        with launch(ib, batch, gpu, "i") as i:
            cnt = ib.allocate("int32", (1,), name="cnt", scope="local")
            cnt[0] = const(0, "int32")
            with ib.for_range(0, n, name="j") as j:
                src = b[i * n + j]
                dst = cnt[0] if to_top else j
                with ib.if_scope(src >= 0):
                    for k in range(elem):
                        o[(i * n + dst) * elem + k] = d[(i * n + src) * elem + k]
                    if to_top:
                        cnt[0] = cnt[0] + 1
                if not to_top:
                    with ib.else_scope():
                        for k in range(elem):
                            o[(i * n + j) * elem + k] = const(-1, dtype)
            if to_top:
                with ib.for_range(cnt[0], n, name="j") as j:
                    for k in range(elem):
                        o[(i * n + j) * elem + k] = const(-1, dtype)
        return ib.get()
    return extern((batch, n, elem), [data, box], body, name="nms_output", dtype=dtype,
                  tag="nms_output")


def all_class_non_max_suppression(boxes, scores, max_output_boxes_per_class, iou_threshold,
                                  score_threshold, output_format="onnx"):
    """Greedy non-maximum suppression of each class separately (ONNX NonMaxSuppression,
    TensorFlow combined NMS). ``boxes`` (batch, num_boxes, 4) corners in either order,
    ``scores`` (batch, num_classes, num_boxes).

    Per (batch, class) the boxes scoring above ``score_threshold`` are visited by
    descending score (ties: lower box first); a box is selected unless a selected box of
    that class overlaps it with IoU >= ``iou_threshold``; at most
    ``max_output_boxes_per_class`` are selected when it is > 0. The three thresholds are
    numbers, PrimExprs or one-element tensors.

    ``output_format="onnx"``: ``[selected_indices (batch * num_classes * num_boxes, 3)
    int64 of (batch, class, box) rows, batch-major then class then descending score,
    num_total_detections (1,) int64]``; rows past the total are 0.
    ``"tensorflow"``: ``[selected_indices (batch, num_classes * num_boxes, 2) int64 of
    (class, box), selected_scores (batch, num_classes * num_boxes),
    num_total_detections (batch,) int64]``, per batch row the classes one after another;
    entries past a row's total are 0."""
    op = "vision.all_class_non_max_suppression"
    check_tensor(boxes, 3, "boxes", op, last={4})
    check_tensor(scores, 3, "scores", op)
    batch, nb, _ = (int(d) for d in boxes.shape)
    sb, ncls, sn = (int(d) for d in scores.shape)
    if (sb, sn) != (batch, nb):
        raise TepadError(f"{op}: scores {list(scores.shape)} must be (batch, num_classes, "
                         f"num_boxes) for boxes {list(boxes.shape)}")
    if output_format not in ("onnx", "tensorflow"):
        raise TepadError(f"{op}: output_format must be 'onnx' or 'tensorflow', got "
                         f"{output_format!r}")
    dtype = scores.dtype
    bdt = boxes.dtype
    gpu = on_gpu()
    rows = batch * ncls

    extra_s, s_thr = scalar_arg(score_threshold, dtype, "score_threshold", op)

    def count_body(ins, outs):
        ib = ir_builder.create()
        p = [ib.buffer_ptr(b) for b in ins]
        o = ib.buffer_ptr(outs[0])
        thr = s_thr(p[1:])
        with launch(ib, rows, gpu, "r") as r:
            cnt = ib.allocate("int32", (1,), name="cnt", scope="local")
            cnt[0] = const(0, "int32")
            with ib.for_range(0, nb, name="k") as k:
                with ib.if_scope(p[0][r * nb + k] > thr):
                    cnt[0] = cnt[0] + 1
            o[r] = cnt[0]
        return ib.get()
    valid = extern((rows,), [scores] + extra_s, count_body, name="nms_score_count",
                   dtype="int32", tag="nms_score_count")
    # the whole row sorted: the first valid[r] positions are then the scores above the
    # threshold
    order = extern((rows, nb), [scores],
                   _rank_sort(rows, nb, lambda p, r, k: p[0][r * nb + k],
                              lambda p, r: const(nb, "int32"), gpu),
                   name="nms_argsort", dtype="int32", tag="nms_argsort")

    extra_m, max_out = scalar_arg(max_output_boxes_per_class, "int32",
                                  "max_output_boxes_per_class", op)
    extra_t, iou_thr = scalar_arg(iou_threshold, bdt, "iou_threshold", op)

    # per (batch, class) row: the selected boxes (sorted positions' box ids) and their count
    def select_body(ins, outs):
        ib = ir_builder.create()
        p = [ib.buffer_ptr(b) for b in ins]
        bx, srt, vcnt = p[0], p[1], p[2]
        max_o = max_out(p[3:3 + len(extra_m)])
        thr = iou_thr(p[3 + len(extra_m):])
        sel, num = (ib.buffer_ptr(b) for b in outs)
        with launch(ib, rows, gpu, "r") as r:
            b = r // ncls
            kept = ib.allocate("int32", (1,), name="kept", scope="local")
            ok = ib.allocate("int32", (1,), name="ok", scope="local")
            kept[0] = const(0, "int32")
            limit = tirop.if_then_else(max_o > 0, max_o, const(nb, "int32"))
            with ib.for_range(0, vcnt[r], name="j") as j:
                with ib.if_scope(kept[0] < limit):
                    cand = srt[r * nb + j]
                    a = corners(lambda q: bx[(b * nb + cand) * 4 + q])
                    ok[0] = const(1, "int32")
                    with ib.for_range(0, kept[0], name="k") as k:
                        other = corners(lambda q: bx[(b * nb + sel[r * nb + k]) * 4 + q])
                        with ib.if_scope(tirop.all(ok[0] == 1,
                                                   box_iou(*a, *other, bdt) >= thr)):
                            ok[0] = const(0, "int32")
                    with ib.if_scope(ok[0] == 1):
                        sel[r * nb + kept[0]] = cand
                        kept[0] = kept[0] + 1
            num[r] = kept[0]
        return ib.get()
    sel, num = extern([(rows, nb), (rows,)], [boxes, order, valid] + extra_m + extra_t,
                      select_body, name="all_class_nms", dtype=["int32", "int32"],
                      tag="all_class_nms")

    if output_format == "onnx":
        def collect(ins, outs):
            ib = ir_builder.create()
            s, c = ib.buffer_ptr(ins[0]), ib.buffer_ptr(ins[1])
            o, tot = ib.buffer_ptr(outs[0]), ib.buffer_ptr(outs[1])
            with launch(ib, 1, gpu, "u"):
                pos = ib.allocate("int32", (1,), name="pos", scope="local")
                pos[0] = const(0, "int32")
                with ib.for_range(0, rows, name="r") as r:
                    with ib.for_range(0, c[r], name="k") as k:
                        o[pos[0] * 3] = (r // ncls).astype("int64")
                        o[pos[0] * 3 + 1] = (r % ncls).astype("int64")
                        o[pos[0] * 3 + 2] = s[r * nb + k].astype("int64")
                        pos[0] = pos[0] + 1
                with ib.for_range(pos[0] * 3, rows * nb * 3, name="q") as q:
                    o[q] = const(0, "int64")
                tot[0] = pos[0].astype("int64")
            return ib.get()
        return extern([(rows * nb, 3), (1,)], [sel, num], collect,
                      name="all_class_nms_collect", dtype=["int64", "int64"],
                      tag="all_class_nms_collect")

    def collect_tf(ins, outs):
        ib = ir_builder.create()
        s, c, sc = (ib.buffer_ptr(b) for b in ins)
        o, osc, tot = (ib.buffer_ptr(b) for b in outs)
        width = ncls * nb
        with launch(ib, batch, gpu, "b") as b:
            pos = ib.allocate("int32", (1,), name="pos", scope="local")
            pos[0] = const(0, "int32")
            with ib.for_range(0, ncls, name="cl") as cl:
                r = b * ncls + cl
                with ib.for_range(0, c[r], name="k") as k:
                    box = s[r * nb + k]
                    o[(b * width + pos[0]) * 2] = cl.astype("int64")
                    o[(b * width + pos[0]) * 2 + 1] = box.astype("int64")
                    osc[b * width + pos[0]] = sc[r * nb + box]
                    pos[0] = pos[0] + 1
            with ib.for_range(pos[0], width, name="q") as q:
                o[(b * width + q) * 2] = const(0, "int64")
                o[(b * width + q) * 2 + 1] = const(0, "int64")
                osc[b * width + q] = const(0, dtype)
            tot[b] = pos[0].astype("int64")
        return ib.get()
    return extern([(batch, ncls * nb, 2), (batch, ncls * nb), (batch,)], [sel, num, scores],
                  collect_tf, name="all_class_nms_collect", dtype=["int64", dtype, "int64"],
                  tag="all_class_nms_collect")


__all__ = ["get_valid_counts", "non_max_suppression", "all_class_non_max_suppression"]
