"""topi.vision's object-detection operators (get_valid_counts, the two NMS flavours, SSD's
multibox ops, R-CNN's proposal) against plain-Python / numpy walks written here, on the
CPU schedules and through the CUDA emulator."""
import math

import numpy as np
import pytest

import tepad
from tepad import te, topi
from tepad.errors import TepadError
from tepad.target import Target

from topi_helpers import run

RNG = np.random.default_rng(27)
TARGETS = ["llvm", "cuda"]


def _sched(name, target):
    return getattr(topi.cuda if target == "cuda" else topi.x86, name)


def _iou(a, b, plus=0.0):
    la, ta, ra, ba = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
    lb, tb, rb, bb = min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])
    w = max(0.0, min(ra, rb) - max(la, lb) + plus)
    h = max(0.0, min(ba, bb) - max(ta, tb) + plus)
    inter = w * h
    union = (ra - la + plus) * (ba - ta + plus) + (rb - lb + plus) * (bb - tb + plus) - inter
    return 0.0 if union <= 0 else inter / union


def _boxes(batch, n, elem, coord_start, span=10.0):
    d = RNG.uniform(-0.2, 1.0, (batch, n, elem)).astype("float32")
    xy = RNG.uniform(0, span, (batch, n, 2))
    wh = RNG.uniform(1, span / 2, (batch, n, 2))
    d[:, :, coord_start:coord_start + 2] = xy
    d[:, :, coord_start + 2:coord_start + 4] = xy + wh
    return d


# ---- get_valid_counts ---------------------------------------------------------------------

def _valid_counts_ref(data, thr, id_index, score_index):
    batch, n, elem = data.shape
    count = np.zeros(batch, "int32")
    out = -np.ones_like(data)
    idx = -np.ones((batch, n), "int32")
    for b in range(batch):
        keep = data[b, :, score_index] > thr
        if id_index >= 0:
            keep &= data[b, :, id_index] >= 0
        rows = np.flatnonzero(keep)
        count[b] = len(rows)
        out[b, :len(rows)] = data[b, rows]
        idx[b, :len(rows)] = rows
    return count, out, idx


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape,thr,id_index,score_index",
                         [((2, 40, 6), 0.3, 0, 1), ((3, 17, 5), -1.0, -1, 0),
                          ((1, 30, 6), 0.8, 1, 0)])
def test_get_valid_counts(target, shape, thr, id_index, score_index):
    data = RNG.uniform(-1, 1, shape).astype("float32")
    D = te.placeholder(shape, name="data")
    with Target(target):
        outs = topi.vision.get_valid_counts(D, thr, id_index, score_index)
    got = run(outs, [D], [data], topi.generic.schedule_get_valid_counts, target)
    for g, r in zip(got, _valid_counts_ref(data, thr, id_index, score_index)):
        np.testing.assert_array_equal(g, r)


def test_get_valid_counts_threshold_tensor():
    data = RNG.uniform(-1, 1, (2, 12, 5)).astype("float32")
    D = te.placeholder(data.shape, name="data")
    T = te.placeholder((1,), name="thr")
    outs = topi.vision.get_valid_counts(D, T, -1, 0)
    got = run(outs, [D, T], [data, np.array([0.25], "float32")])
    for g, r in zip(got, _valid_counts_ref(data, 0.25, -1, 0)):
        np.testing.assert_array_equal(g, r)


# ---- non_max_suppression ------------------------------------------------------------------

def _nms_ref(data, valid, indices, max_out, thr, force, top_k, cs, si, ii):
    """(rows of data kept per output position, -1 where none)."""
    batch, n, _ = data.shape
    box = -np.ones((batch, n), "int64")
    for b in range(batch):
        v = int(valid[b])
        if thr <= 0:
            box[b, :v] = np.arange(v)
            continue
        order = sorted(range(v), key=lambda k: -float(data[b, k, si]))
        if top_k > 0:
            order = order[:top_k]
        kept = []
        for j, src in enumerate(order):
            if len(kept) == max_out:
                continue
            row = data[b, src]
            if row[si] > 0:
                if any(_iou(row[cs:cs + 4], data[b, k, cs:cs + 4]) >= thr
                       and (ii < 0 or (data[b, k, ii] >= 0
                                       and (force or data[b, k, ii] == row[ii])))
                       for k in kept):
                    continue
                kept.append(src)
            box[b, j] = src
    return box


def _nms_outputs(data, box, indices, si):
    rows = np.where(box[..., None] >= 0, np.take_along_axis(
        data, np.maximum(box, 0)[..., None], axis=1), -1).astype(data.dtype)
    mapped = np.where(box >= 0, np.take_along_axis(indices, np.maximum(box, 0), 1), -1)
    compact = -np.ones_like(indices)
    count = np.zeros((data.shape[0], 1), "int32")
    bottom = -np.ones_like(data)
    for b in range(data.shape[0]):
        m = mapped[b][mapped[b] >= 0]
        compact[b, :len(m)] = m
        count[b, 0] = len(m)
        r = rows[b][box[b] >= 0]
        bottom[b, :len(r)] = r
    return rows, compact, count, bottom


NMS_CASES = [
    # elem, coord_start, score_index, id_index, force, top_k, max_out, thr
    (6, 2, 1, 0, False, -1, -1, 0.3),
    (6, 2, 1, 0, True, 7, -1, 0.5),
    (5, 1, 0, -1, False, -1, 4, 0.2),
    (6, 2, 1, 0, False, 5, 3, 0.0),
]


# every case on the CPU; one through the emulator (the kernels are shared)
@pytest.mark.parametrize("case, target", [(c, "llvm") for c in NMS_CASES] +
                         [(NMS_CASES[0], "cuda")])
def test_non_max_suppression(case, target):
    elem, cs, si, ii, force, top_k, max_out, thr = case
    batch, n = 2, 16
    data = _boxes(batch, n, elem, cs)
    if ii >= 0:
        data[:, :, ii] = RNG.integers(-1, 3, (batch, n))
    valid = np.array([n, 11], "int32")
    indices = np.stack([RNG.permutation(n) for _ in range(batch)]).astype("int32")
    box = _nms_ref(data, valid, indices, max_out, thr, force, top_k, cs, si, ii)
    rows, compact, count, bottom = _nms_outputs(data, box, indices, si)
    D = te.placeholder(data.shape, name="data")
    V = te.placeholder((batch,), "int32", name="valid")
    ind = te.placeholder((batch, n), "int32", name="indices")
    sched = topi.generic.schedule_nms
    kw = dict(max_output_size=max_out, iou_threshold=thr, force_suppress=force, top_k=top_k,
              coord_start=cs, score_index=si, id_index=ii)
    with Target(target):
        out = topi.vision.non_max_suppression(D, V, ind, return_indices=False, **kw)
        bot = topi.vision.non_max_suppression(D, V, ind, return_indices=False,
                                              invalid_to_bottom=True, **kw)
        idx = topi.vision.non_max_suppression(D, V, ind, return_indices=True, **kw)
    args = [data, valid, indices]
    np.testing.assert_array_equal(run(out, [D, V, ind], args, sched, target), rows)
    np.testing.assert_array_equal(run(bot, [D, V, ind], args, sched, target), bottom)
    got_idx, got_count = run(idx, [D, V, ind], args, sched, target)
    np.testing.assert_array_equal(got_idx, compact)
    np.testing.assert_array_equal(got_count, count)


def test_nms_indices_without_count():
    """The count of kept boxes is a by-product: a build may leave it out of its args."""
    data = _boxes(1, 8, 6, 2)
    D = te.placeholder(data.shape, name="data")
    V = te.placeholder((1,), "int32", name="valid")
    ind = te.placeholder((1, 8), "int32", name="indices")
    idx, _ = topi.vision.non_max_suppression(D, V, ind, iou_threshold=0.4)
    s = topi.generic.schedule_nms(idx)
    f = tepad.build(s, [D, V, ind, idx])
    got = np.zeros((1, 8), "int32")
    ident = np.arange(8, dtype="int32")[None]
    f(data, np.array([8], "int32"), ident, got)
    box = _nms_ref(data, [8], ident, -1, 0.4, False, -1, 2, 1, 0)
    np.testing.assert_array_equal(got, _nms_outputs(data, box, ident, 1)[1])


# ---- all_class_non_max_suppression --------------------------------------------------------

def _all_class_ref(boxes, scores, max_out, thr, score_thr):
    batch, ncls, n = scores.shape
    sel = {}
    for b in range(batch):
        for c in range(ncls):
            order = [k for k in sorted(range(n), key=lambda k: -float(scores[b, c, k]))
                     if scores[b, c, k] > score_thr]
            kept = []
            for k in order:
                if max_out > 0 and len(kept) == max_out:
                    break
                if all(_iou(boxes[b, k], boxes[b, q]) < thr for q in kept):
                    kept.append(k)
            sel[b, c] = kept
    return sel


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("max_out,thr,score_thr", [(3, 0.4, 0.2), (0, 0.6, 0.0)])
def test_all_class_nms(target, max_out, thr, score_thr):
    batch, ncls, n = 2, 3, 12
    boxes = _boxes(batch, n, 4, 0, span=4.0)
    boxes[:, ::3] = boxes[:, ::3][:, :, [2, 3, 0, 1]]        # corners in the other order
    scores = RNG.random((batch, ncls, n)).astype("float32")
    sel = _all_class_ref(boxes, scores, max_out, thr, score_thr)
    B = te.placeholder(boxes.shape, name="boxes")
    S = te.placeholder(scores.shape, name="scores")
    with Target(target):
        onnx = topi.vision.all_class_non_max_suppression(B, S, max_out, thr, score_thr)
        tf = topi.vision.all_class_non_max_suppression(B, S, max_out, thr, score_thr,
                                                       "tensorflow")
    idx, total = run(onnx, [B, S], [boxes, scores], topi.generic.schedule_nms, target)
    want = [(b, c, k) for b in range(batch) for c in range(ncls) for k in sel[b, c]]
    assert total[0] == len(want)
    np.testing.assert_array_equal(idx[:len(want)], np.array(want).reshape(-1, 3))
    assert (idx[len(want):] == 0).all()
    tidx, tsc, ttot = run(tf, [B, S], [boxes, scores], topi.generic.schedule_nms, target)
    for b in range(batch):
        w = [(c, k) for c in range(ncls) for k in sel[b, c]]
        assert ttot[b] == len(w)
        np.testing.assert_array_equal(tidx[b, :len(w)], np.array(w).reshape(-1, 2))
        np.testing.assert_array_equal(tsc[b, :len(w)], [scores[b, c, k] for c, k in w])


def test_all_class_nms_tensor_thresholds():
    boxes = _boxes(1, 10, 4, 0, span=3.0)
    scores = RNG.random((1, 2, 10)).astype("float32")
    B, S = te.placeholder(boxes.shape, name="b"), te.placeholder(scores.shape, name="s")
    M = te.placeholder((1,), "int64", name="m")
    T = te.placeholder((1,), name="t")
    idx, total = topi.vision.all_class_non_max_suppression(B, S, M, T, 0.3)
    got, n = run([idx, total], [B, S, M, T],
                 [boxes, scores, np.array([2], "int64"), np.array([0.5], "float32")])
    sel = _all_class_ref(boxes, scores, 2, 0.5, 0.3)
    want = [(0, c, k) for c in range(2) for k in sel[0, c]]
    assert n[0] == len(want)
    np.testing.assert_array_equal(got[:len(want)], np.array(want).reshape(-1, 3))


# ---- SSD ----------------------------------------------------------------------------------

def _prior_ref(h, w, sizes, ratios, steps, offsets, clip):
    sh = steps[0] if steps[0] > 0 else 1.0 / h
    sw = steps[1] if steps[1] > 0 else 1.0 / w
    halves = [(s * h / w / 2, s / 2) for s in sizes]
    halves += [(sizes[0] * h / w * math.sqrt(r) / 2, sizes[0] / math.sqrt(r) / 2)
               for r in ratios[1:]]
    cy = (np.arange(h) + offsets[0]) * sh
    cx = (np.arange(w) + offsets[1]) * sw
    gy, gx = np.meshgrid(cy, cx, indexing="ij")
    hw = np.array([a for a, _ in halves])
    hh = np.array([b for _, b in halves])
    out = np.stack([gx[..., None] - hw, gy[..., None] - hh, gx[..., None] + hw,
                    gy[..., None] + hh], axis=-1).reshape(1, -1, 4)
    return np.clip(out, 0, 1) if clip else out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("h,w,sizes,ratios,steps,offsets,clip",
                         [(6, 9, (0.6, 0.3), (1, 2, 0.5), (-1, -1), (0.5, 0.5), False),
                          (5, 5, (0.9,), (1, 3), (0.25, 0.2), (0.3, 0.6), True)])
def test_multibox_prior(target, h, w, sizes, ratios, steps, offsets, clip):
    D = te.placeholder((1, 2, h, w), name="data")
    out = topi.vision.ssd.multibox_prior(D, sizes, ratios, steps, offsets, clip)
    got = run(out, [D], [np.zeros((1, 2, h, w), "float32")],
              topi.generic.schedule_multibox_prior, target)
    np.testing.assert_allclose(got, _prior_ref(h, w, sizes, ratios, steps, offsets, clip),
                               rtol=1e-5, atol=1e-6)


def _transform_ref(cls_prob, loc, anchor, clip, thr, var, keep_bg):
    batch, ncls, na = cls_prob.shape
    out = -np.ones((batch, na, 6), "float32")
    count = np.zeros(batch, "int32")
    first = 0 if keep_bg else 1
    for b in range(batch):
        for j in range(na):
            p = cls_prob[b, first:, j]
            cid = int(np.argmax(p)) + first
            score = p.max()
            if cid > 0 and score < thr:
                cid = 0
            if not keep_bg and cid == 0:
                continue
            al, at, ar, ab = anchor[0, j]
            px, py, pw, ph = loc[b, 4 * j:4 * j + 4]
            ax, ay, aw, ah = (al + ar) / 2, (at + ab) / 2, ar - al, ab - at
            ox, oy = px * var[0] * aw + ax, py * var[1] * ah + ay
            ow, oh = math.exp(pw * var[2]) * aw / 2, math.exp(ph * var[3]) * ah / 2
            c = np.array([ox - ow, oy - oh, ox + ow, oy + oh])
            if clip:
                c = np.clip(c, 0, 1)
            out[b, count[b]] = [cid - (0 if keep_bg else 1), score, *c]
            count[b] += 1
    return out, count


def _ssd_inputs(batch=2, ncls=4, na=10):
    cls_prob = RNG.random((batch, ncls, na)).astype("float32")
    cls_prob /= cls_prob.sum(axis=1, keepdims=True)
    loc = RNG.uniform(-0.5, 0.5, (batch, na * 4)).astype("float32")
    xy = RNG.uniform(0, 0.8, (1, na, 2))
    anchor = np.concatenate([xy, xy + RNG.uniform(0.05, 0.4, (1, na, 2))], -1).astype("float32")
    return cls_prob, loc, anchor


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("clip,thr,keep_bg", [(True, 0.3, False), (False, 0.2, True)])
def test_multibox_transform_loc(target, clip, thr, keep_bg):
    cls_prob, loc, anchor = _ssd_inputs()
    C, L, A = (te.placeholder(a.shape, name=nm) for a, nm in
               ((cls_prob, "c"), (loc, "l"), (anchor, "a")))
    var = (0.1, 0.2, 0.3, 0.25)
    with Target(target):
        outs = topi.vision.ssd.multibox_transform_loc(C, L, A, clip, thr, var, keep_bg)
    rows, count = run(outs, [C, L, A], [cls_prob, loc, anchor],
                      topi.generic.schedule_multibox_transform_loc, target)
    ref_rows, ref_count = _transform_ref(cls_prob, loc, anchor, clip, thr, var, keep_bg)
    np.testing.assert_array_equal(count, ref_count)
    np.testing.assert_allclose(rows, ref_rows, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_multibox_detection(target):
    cls_prob, loc, anchor = _ssd_inputs(ncls=3, na=14)
    C, L, A = (te.placeholder(a.shape, name=nm) for a, nm in
               ((cls_prob, "c"), (loc, "l"), (anchor, "a")))
    with Target(target):
        out = topi.vision.ssd.multibox_detection(C, L, A, threshold=0.2, nms_threshold=0.3,
                                                 nms_topk=8)
    got = run(out, [C, L, A], [cls_prob, loc, anchor],
              topi.generic.schedule_multibox_detection, target)
    rows, count = _transform_ref(cls_prob, loc, anchor, True, 0.2, (0.1, 0.1, 0.2, 0.2), False)
    box = _nms_ref(rows, count, None, -1, 0.3, False, 8, 2, 1, 0)
    want = _nms_outputs(rows, box, np.zeros(box.shape, "int32"), 1)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# ---- proposal -----------------------------------------------------------------------------

def _proposal_ref(cls_prob, deltas, im_info, scales, ratios, stride, thr, pre, post, min_size,
                  iou_loss):
    batch, _, h, w = cls_prob.shape
    na = len(scales) * len(ratios)
    base = []
    for k in range(na):
        r, s = ratios[k // len(scales)], scales[k % len(scales)]
        c = (stride - 1) / 2
        bw = math.floor(math.sqrt(math.floor(stride * stride / r)) + 0.5)
        bh = math.floor(bw * r + 0.5)
        base.append((c - (bw * s - 1) / 2, c - (bh * s - 1) / 2, c + (bw * s - 1) / 2,
                     c + (bh * s - 1) / 2))
    out = np.zeros((batch * post, 5), "float32")
    for b in range(batch):
        ih, iw, isc = im_info[b]
        cand = []
        for y in range(h):
            for x in range(w):
                for k in range(na):
                    x1, y1, x2, y2 = (base[k][0] + x * stride, base[k][1] + y * stride,
                                      base[k][2] + x * stride, base[k][3] + y * stride)
                    d = deltas[b, 4 * k:4 * k + 4, y, x]
                    if iou_loss:
                        p = [x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3]]
                    else:
                        bw, bh = x2 - x1 + 1, y2 - y1 + 1
                        cx, cy = d[0] * bw + x1 + (bw - 1) / 2, d[1] * bh + y1 + (bh - 1) / 2
                        pw, ph = math.exp(d[2]) * bw, math.exp(d[3]) * bh
                        p = [cx - (pw - 1) / 2, cy - (ph - 1) / 2, cx + (pw - 1) / 2,
                             cy + (ph - 1) / 2]
                    p = [min(max(v, 0.0), lim - 1) for v, lim in zip(p, (iw, ih, iw, ih))]
                    score = cls_prob[b, na + k, y, x]
                    if y >= int(ih / stride) or x >= int(iw / stride):
                        score = -1.0
                    m = isc * min_size
                    if p[2] - p[0] + 1 < m or p[3] - p[1] + 1 < m:
                        p = [p[0] - m / 2, p[1] - m / 2, p[2] + m / 2, p[3] + m / 2]
                        score = -1.0
                    cand.append((p, score))
        order = sorted(range(len(cand)), key=lambda q: -cand[q][1])[:pre]
        kept = []
        for q in order:
            if all(_iou(cand[q][0], cand[k][0], plus=1.0) <= thr for k in kept):
                kept.append(q)
        for r in range(post):
            out[b * post + r] = [b, *cand[kept[r % len(kept)]][0]]
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("iou_loss", [False, True])
def test_proposal(target, iou_loss):
    scales, ratios, stride = (0.5, 1.0), (0.5, 2.0), 8
    na, batch, h, w = 4, 2, 4, 5
    cls_prob = RNG.random((batch, 2 * na, h, w)).astype("float32")
    deltas = RNG.uniform(-0.4, 0.4, (batch, 4 * na, h, w)).astype("float32")
    if iou_loss:
        deltas *= 6
    im_info = np.array([[30.0, 40.0, 1.0], [24.0, 36.0, 0.5]], "float32")
    attrs = dict(scales=scales, ratios=ratios, feature_stride=stride, threshold=0.5,
                 rpn_pre_nms_top_n=40, rpn_post_nms_top_n=12, rpn_min_size=4,
                 iou_loss=iou_loss)
    P, Dl, I = (te.placeholder(a.shape, name=nm) for a, nm in
                ((cls_prob, "p"), (deltas, "d"), (im_info, "i")))
    with Target(target):
        out = topi.vision.rcnn.proposal(P, Dl, I, **attrs)
    got = run(out, [P, Dl, I], [cls_prob, deltas, im_info], topi.generic.schedule_proposal,
              target)
    want = _proposal_ref(cls_prob, deltas, im_info, scales, ratios, stride, 0.5, 40, 12, 4,
                         iou_loss)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


# ---- dispatch, IR, errors -----------------------------------------------------------------

def test_cuda_kernels_bind_threads():
    """Under a CUDA target every kernel of the chain binds its own GPU threads, so the plain
    schedule lowers with no unbound loop left for the host."""
    D = te.placeholder((1, 8, 6), name="data")
    V = te.placeholder((1,), "int32", name="valid")
    ind = te.placeholder((1, 8), "int32", name="ind")
    with Target("cuda"):
        out = topi.vision.non_max_suppression(D, V, ind, return_indices=False)
        s = topi.generic.schedule_nms(out)
    text = str(tepad.lower(s, [D, V, ind, out]))
    assert text.count("threadIdx.x") >= 3 and text.count("blockIdx.x") >= 3
    # topi.cuda's entry builds for CUDA even outside a target scope
    assert "threadIdx.x" in str(tepad.lower(*_one(topi.cuda.get_valid_counts)))


def _one(fn):
    D = te.placeholder((2, 8, 5), name="data")
    outs = fn(D, 0.5, -1, 0)
    return topi.cuda.schedule_get_valid_counts(outs), [D] + list(outs)


def test_generic_schedule_names():
    for name in ("schedule_nms", "schedule_get_valid_counts", "schedule_multibox_prior",
                 "schedule_multibox_detection", "schedule_multibox_transform_loc",
                 "schedule_proposal"):
        assert getattr(topi.generic.vision, name) is getattr(topi.generic, name)
        assert callable(getattr(topi.x86, name)) and callable(getattr(topi.cuda, name))


def test_errors():
    D = te.placeholder((1, 8, 6), name="data")
    V = te.placeholder((1,), "int32", name="valid")
    with pytest.raises(TepadError, match="score_index"):
        topi.vision.get_valid_counts(D, 0.1, 0, 6)
    with pytest.raises(TepadError, match="coord_start"):
        topi.vision.non_max_suppression(D, V, None, coord_start=4, return_indices=False)
    with pytest.raises(TepadError, match="iou_threshold"):
        topi.vision.non_max_suppression(D, V, None, iou_threshold="x", return_indices=False)
    with pytest.raises(TepadError, match="one element"):
        topi.vision.get_valid_counts(D, te.placeholder((2,), name="t"))
    with pytest.raises(TepadError, match="output_format"):
        topi.vision.all_class_non_max_suppression(
            te.placeholder((1, 5, 4), name="b"), te.placeholder((1, 2, 5), name="s"), 1,
            0.5, 0.1, output_format="coco")
    with pytest.raises(TepadError, match="num_boxes"):
        topi.vision.all_class_non_max_suppression(
            te.placeholder((1, 5, 4), name="b"), te.placeholder((1, 2, 6), name="s"), 1,
            0.5, 0.1)
    with pytest.raises(TepadError, match="ratios"):
        topi.vision.ssd.multibox_prior(te.placeholder((1, 2, 3, 3), name="d"), ratios=())
    with pytest.raises(TepadError, match="loc_pred"):
        topi.vision.ssd.multibox_transform_loc(te.placeholder((1, 3, 4), name="c"),
                                               te.placeholder((1, 12), name="l"),
                                               te.placeholder((1, 4, 4), name="a"))
    with pytest.raises(TepadError, match="bbox_pred"):
        topi.vision.rcnn.proposal(te.placeholder((1, 2, 3, 3), name="p"),
                                  te.placeholder((1, 8, 3, 3), name="d"),
                                  te.placeholder((1, 3), name="i"), (1.0,), (1.0,), 16,
                                  0.7, 10, 4, 1, False)


def _ptx_chains():
    D = te.placeholder((2, 16, 6), name="d")
    V = te.placeholder((2,), "int32", name="v")
    ind = te.placeholder((2, 16), "int32", name="i")
    B, S = te.placeholder((2, 9, 4), name="b"), te.placeholder((2, 3, 9), name="s")
    X = te.placeholder((1, 3, 8, 8), name="x")
    C, L = te.placeholder((2, 3, 10), name="c"), te.placeholder((2, 40), name="l")
    A = te.placeholder((1, 10, 4), name="a")
    P, Q = te.placeholder((1, 8, 3, 3), name="p"), te.placeholder((1, 16, 3, 3), name="q")
    M = te.placeholder((1, 3), name="m")
    v = topi.vision
    return {
        "valid_counts": (lambda: v.get_valid_counts(D, 0.2), [D], "schedule_get_valid_counts"),
        "nms": (lambda: v.non_max_suppression(D, V, ind, return_indices=False,
                                              invalid_to_bottom=True), [D, V, ind],
                "schedule_nms"),
        "nms_indices": (lambda: v.non_max_suppression(D, V, ind), [D, V, ind], "schedule_nms"),
        "all_class": (lambda: v.all_class_non_max_suppression(B, S, 2, 0.5, 0.1, "tensorflow"),
                      [B, S], "schedule_nms"),
        "prior": (lambda: v.ssd.multibox_prior(X, (0.5, 0.2), (1, 2), clip=True), [X],
                  "schedule_multibox_prior"),
        "detection": (lambda: v.ssd.multibox_detection(C, L, A), [C, L, A],
                      "schedule_multibox_detection"),
        "proposal": (lambda: v.rcnn.proposal(P, Q, M, (0.5, 1.0), (0.5, 2.0), 16, 0.7, 20, 4,
                                             16, False), [P, Q, M], "schedule_proposal"),
    }


@pytest.mark.parametrize("name", sorted(_ptx_chains()))
def test_cuda_kernels_assemble(name, tmp_path):
    """Every kernel of each operator compiles to PTX that ptxas accepts for sm_90."""
    import subprocess

    from tepad.backend.cuda import ptx_of
    from tepad.codegen.nvptx_target import ptxas_path
    from tepad.lower.pipeline import Options, lower_for_codegen
    if ptxas_path() is None:
        pytest.skip("ptxas not found (pip install nvidia-cuda-nvcc-cu12)")
    make, ins, sched = _ptx_chains()[name]
    with Target("cuda"):
        outs = make()
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        s = getattr(topi.cuda, sched)(outs)
    ptx = ptx_of(lower_for_codegen(s, ins + outs, name, Options(target="cuda")),
                 "cuda -arch=sm_90")
    (tmp_path / "k.ptx").write_text(ptx)
    r = subprocess.run([ptxas_path(), "-arch=sm_90", str(tmp_path / "k.ptx"), "-o",
                        str(tmp_path / "k.cubin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
