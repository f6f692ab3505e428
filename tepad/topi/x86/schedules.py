"""CPU schedules (TVM's ``topi.x86``), written against the target.

Every schedule reads the current target (``with Target(...)``, else the host): a vector
register's lanes for the output dtype (``vector_lanes``) set the innermost split, which is
vectorized, and outer loops are fused and run in parallel. Contractions (convolutions,
dense, matmuls) compute a tile of (a block of rows or channels, bounded by
``vector_registers``) x (one vector) into a ``local`` accumulator with the reduction loops
outside it (an elementwise epilogue reads the tile in the output's loops; a transposed
weight is packed once so each step loads one vector). Reductions along contiguous rows keep
a vector of partial results per row (rfactor). Injective producers are inlined, except a
convolution's padded input, computed once at the root so the inner loops read it without
branches."""
from __future__ import annotations

from ...target import as_target
from ...tensor import ComputeOp
from ...tir.expr import IntImm, ProducerLoad
from ...tir.functor import post_order_visit
from ...tir.itervar import IterVarType
from ..schedule_utils import (as_outs, compute_stages, divisor_at_most, extent,
                              inline_injective, reorg_schedule)
from ...schedule import AttachType, create_schedule

_VECTOR_DTYPES = ("float", "int", "uint")


def _lanes(dtype) -> int:
    return as_target(None).vector_lanes(dtype)


def _vectorizable(t) -> bool:
    return str(t.dtype).startswith(_VECTOR_DTYPES)


def schedule_tagged(outs, tag: str, apply):
    """A schedule of ``outs`` whose stage tagged ``tag`` is scheduled by ``apply(s, op)``: the
    injective stages inlined except the padding (computed once at the root), the other
    stages left parallel and vectorized."""
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    inline_injective(s, outs, keep=("pad",))
    for st in list(s.stages):
        op = st.op
        if not isinstance(op, ComputeOp) or st.attach_type in (AttachType.Inline,
                                                               AttachType.InlinedAlready):
            continue
        if op.tag == tag:
            apply(s, op)
        else:
            parallel_vectorize(s, op.output(0))
    return s


def parallel_vectorize(s, t):
    """``t``'s leading axes fused and parallel; its innermost axis split by the target's
    vector lanes with the inner part vectorized (reduction axes moved outside it, so a
    reduction vectorizes across outputs)."""
    st = s[t]
    axes = list(t.op.axis)
    raxes = list(t.op.reduce_axis)
    if not axes:
        return
    lanes = _lanes(t.dtype)
    if raxes and _reduces_along_rows(t, lanes):
        _vector_partial_sums(s, t, lanes)
        return
    if raxes and len(axes) == 1:
        # one output axis: vectorizing across outputs would gather a strided column per
        # reduction step; the rows run in parallel and each reduces contiguously
        st.parallel(axes[0])
        return
    inner = axes[-1]
    outer = st.fuse(*axes[:-1]) if len(axes) > 2 else (axes[0] if len(axes) == 2 else None)
    ext = extent(inner)
    vec = None
    if _vectorizable(t) and ext is not None and ext >= lanes:
        xo, vec = st.split(inner, factor=lanes)
        if raxes:
            st.reorder(*([outer] if outer is not None else []), xo, *raxes, vec)
        st.vectorize(vec)
        if outer is None and not raxes:
            st.parallel(xo)
    if outer is not None:
        st.parallel(outer)


def _reduces_along_rows(t, lanes) -> bool:
    """Whether ``t`` reduces along contiguous rows that vectorizing across outputs would
    miss: one value per stage, no ``where``, at most one output axis or an innermost output
    axis shorter than a vector, and an innermost reduction axis that some read indexes last,
    whose extent is a multiple of the lanes."""
    op = t.op
    if op.num_outputs != 1 or not _vectorizable(t):
        return False
    red = op.body[0]
    cond = getattr(red, "condition", None)
    if cond is not None and not (isinstance(cond, IntImm) and cond.value):
        return False
    axes, r = list(op.axis), op.reduce_axis[-1]
    inner = extent(axes[-1]) if axes else None
    if len(axes) > 1 and inner is not None and inner >= lanes:
        return False
    ext = extent(r)
    if ext is None or ext % lanes or ext < 2 * lanes:
        return False
    return any(load.indices and load.indices[-1] is r.var for load in _loads(red.source[0]))


def _loads(expr):
    found = []
    post_order_visit(expr, lambda n: found.append(n) if isinstance(n, ProducerLoad) else None)
    return found


def _vector_partial_sums(s, t, lanes):
    """The reduction's innermost axis split by the lanes and factored out (rfactor): each
    output keeps one vector of partial results, updated by contiguous vector loads, then
    reduced across its lanes; the output axes fused and parallel."""
    r = t.op.reduce_axis[-1]
    _, ri = s[t].split(r, factor=lanes)
    rf = s.rfactor(t, ri)
    st = s[t]
    leaf = [iv for iv in st.leaf_iter_vars if iv.iter_type != IterVarType.CommReduce]
    at = None
    if leaf:
        at = st.fuse(*leaf) if len(leaf) > 1 else leaf[0]
        st.parallel(at)
        s[rf].compute_at(st, at)
    axes = list(rf.op.axis)
    s[rf].reorder(*axes[1:], *rf.op.reduce_axis, axes[0])
    s[rf].vectorize(axes[0])


def schedule_injective_from_existing(sch, out):
    """Schedule the injective output ``out`` inside the schedule ``sch`` (parallel outer
    loops, vectorized inner loop); returns ``sch``."""
    parallel_vectorize(sch, out)
    return sch


def schedule_injective(outs):
    """Elementwise / broadcast / injective outputs: producers inlined, fused outer loops in
    parallel, inner loop vectorized by the target's lanes."""
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    inline_injective(s, outs)
    for t in outs:
        parallel_vectorize(s, t)
    return s


schedule_elemwise = schedule_injective


def schedule_argwhere(outs):
    """topi.argwhere: its extern walk as written (nothing to schedule)."""
    outs = as_outs(outs)
    return create_schedule([t.op for t in outs])


def schedule_reorg(outs):
    """topi.vision.reorg: its gather stage (tag ``reorg_output``) inlined into the reshape,
    which is then scheduled as an injective output."""
    s, outs = reorg_schedule(outs)
    for t in outs:
        parallel_vectorize(s, t)
    return s


schedule_broadcast = schedule_injective
schedule_concatenate = schedule_injective


def schedule_reduce(outs):
    """Reductions (and chains of them, e.g. softmax): injective producers inlined; every
    remaining stage parallel over its leading axes, vectorized across its innermost output
    axis when that is wide enough (the reduction axes then run outside the vector)."""
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    inline_injective(s, outs)
    for st in compute_stages(s):
        parallel_vectorize(s, st.op.output(0))
    return s


schedule_softmax = schedule_reduce


def schedule_pool(outs, layout="NCHW"):
    """Pooling: ``schedule_reduce`` (``layout``, part of TVM's signature, changes
    nothing: the vectorized axis is the innermost output axis in any layout)."""
    return schedule_reduce(outs)


def schedule_adaptive_pool(outs, layout="NCHW"):
    """Adaptive and global pooling: ``schedule_reduce``."""
    return schedule_reduce(outs)


schedule_pool_grad = schedule_reduce
schedule_unique = schedule_reduce      # topi.unique: counting reductions and gathers
schedule_scan = schedule_reduce
schedule_sort = schedule_argsort = schedule_topk = schedule_reduce   # topi.sort: counting ranks
schedule_lrn = schedule_reduce
schedule_batch_norm = schedule_reduce


def _block_cap() -> int:
    """How many vector accumulators one tile may keep: half the target's registers (the
    rest hold the operands), at most 8."""
    return max(1, min(8, as_target(None).vector_registers // 2))


def _tile_width(ext, lanes):
    """The vector width of a contraction tile: the target's lanes, or half of them when
    that divides the extent and the full width does not (a guard on every accumulation of
    the last tile costs more than the narrower vector); None for a short or symbolic axis."""
    if ext is None or ext < lanes:
        return None
    if ext % lanes and lanes >= 8 and ext % (lanes // 2) == 0:
        return lanes // 2
    return lanes


def tile_reduction(s, t, vec_axis: int, block_axis: int | None, out=None):
    """The register-tiled schedule of a contraction stage ``t`` (a convolution or matmul):
    output axis ``vec_axis`` split by the vector lanes, ``block_axis`` by a block of
    accumulators; per tile, an accumulator stage in ``local`` scope runs the reduction axes
    outside the (block x lanes) tile, which is unrolled x vectorized; leading loops
    parallel. The accumulator is a cache_write of ``t`` when ``t`` is a schedule output, or
    ``t`` itself computed inside the tiles of ``out`` (an output of ``t``'s shape whose
    elementwise epilogue, e.g. bias + relu, is inlined); with neither, ``t`` is tiled in
    place."""
    op = t.op
    lanes = _lanes(t.dtype)
    is_output = op in set(s.outputs)
    if is_output:
        cc = s.cache_write(t, "local")
        out_st = s[t]
        axes = list(op.axis)
    elif out is not None:
        cc = t
        s[t].set_scope("local")
        out_st = s[out]
        axes = list(out.op.axis)
    else:
        cc, out_st = None, s[t]
        axes = list(op.axis)
    vext = extent(axes[vec_axis])
    vf = _tile_width(vext, lanes) if _vectorizable(t) else None
    bext = extent(axes[block_axis]) if block_axis is not None else None
    bf = divisor_at_most(bext, _block_cap()) if bext else None
    outer, inner = [], []
    parts = {}
    for k, ax in enumerate(axes):
        if k == vec_axis and vf:
            parts[k] = out_st.split(ax, factor=vf)
        elif k == block_axis and bf and bf > 1:
            parts[k] = out_st.split(ax, factor=bf)
        else:
            parts[k] = (ax, None)
    for k in range(len(axes)):
        outer.append(parts[k][0])
    for k in (block_axis, vec_axis):
        if k is not None and parts[k][1] is not None:
            inner.append(parts[k][1])
    if cc is None:
        out_st.reorder(*outer, *op.reduce_axis, *inner)
    else:
        out_st.reorder(*outer, *inner)
    if len(outer) > 1:
        par = out_st.fuse(*outer[:-1])
        out_st.parallel(par)
    else:
        par = None
    if cc is None:
        if vf:
            out_st.vectorize(parts[vec_axis][1])
        if block_axis is not None and parts[block_axis][1] is not None:
            out_st.unroll(parts[block_axis][1])
        return s
    if vf:
        out_st.vectorize(parts[vec_axis][1])
    cst = s[cc]
    cst.compute_at(out_st, outer[-1])
    caxes = list(cc.op.axis)
    cinner = [caxes[k] for k in (block_axis, vec_axis) if k is not None and parts[k][1] is not None]
    couter = [a for a in caxes if all(a is not c for c in cinner)]
    cst.reorder(*couter, *cc.op.reduce_axis, *cinner)
    if vf:
        cst.vectorize(caxes[vec_axis])
    if block_axis is not None and parts[block_axis][1] is not None:
        cst.unroll(caxes[block_axis])
    return s


def pack_transposed_operand(s, t, vec_axis: int):
    """When the contraction ``t`` reads an operand as ``B[..., j, k]`` (``j`` its vectorized
    output axis, ``k`` its reduction axis: dense's weight, batch_matmul's default
    ``transpose_b``), copy that operand once into the layout ``[..., j // lanes, k,
    j % lanes]`` (cache_read + transform_layout): the tile then loads one contiguous vector
    of ``B`` per reduction step instead of gathering a strided column. Returns the copy
    stage's tensor or None."""
    op = t.op
    lanes = _lanes(t.dtype)
    j, k = op.axis[vec_axis], op.reduce_axis[-1]
    ext = extent(j)
    if ext is None or ext % lanes or not _vectorizable(t):
        return None
    for load in _loads(op.body[0].source[0]):
        idx = load.indices
        if len(idx) >= 2 and idx[-1] is k.var and idx[-2] is j.var:
            src = load.producer
            cached = s.cache_read(src, "global", [t])
            s[cached].transform_layout(
                lambda *i: [*i[:-2], i[-2] // lanes, i[-1], i[-2] % lanes])
            leaf = s[cached].leaf_iter_vars
            s[cached].parallel(leaf[0])
            s[cached].vectorize(leaf[-1])
            return cached
    return None


def _epilogue_output(s, t, outs):
    """The output that consumes ``t`` elementwise through inlined stages only (``conv +
    bias + relu``), with ``t``'s extents; None when there is none (or ``t`` is an output)."""
    if t.op in set(s.outputs):
        return None
    for o in outs:
        if len(o.shape) != len(t.shape) or any(
                extent_of(a) is None or extent_of(a) != extent_of(b)
                for a, b in zip(o.shape, t.shape)):
            continue
        if _reaches_through_inlined(s, o.op, t.op):
            return o
    return None


def extent_of(e):
    return e.value if isinstance(e, IntImm) else None


def _reaches_through_inlined(s, op, target) -> bool:
    for x in op.input_tensors:
        if x.op is target:
            return True
        if isinstance(x.op, ComputeOp) and \
                s[x.op].attach_type in (AttachType.Inline, AttachType.InlinedAlready) and \
                _reaches_through_inlined(s, x.op, target):
            return True
    return False


def _schedule_contraction(outs, tags, vec_axis, block_axis, keep_pad=True, pack=False):
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    inline_injective(s, outs, keep=("pad",) if keep_pad else ())
    tiled = set()
    for st in compute_stages(s):
        op = st.op
        t = op.output(0)
        if op in tiled:
            continue
        if isinstance(op, ComputeOp) and op.tag in tags:
            if pack:
                pack_transposed_operand(s, t, vec_axis)
            epilogue = _epilogue_output(s, t, outs)
            tile_reduction(s, t, vec_axis, block_axis, epilogue)
            if epilogue is not None:
                tiled.add(epilogue.op)
        elif isinstance(op, ComputeOp):
            parallel_vectorize(s, t)
    return s


def schedule_conv2d_nchw(outs):
    """NCHW convolution: output width vectorized, a block of output channels per tile."""
    return _schedule_contraction(outs, ("conv2d_nchw",), 3, 1)


def schedule_conv2d_nhwc(outs):
    """NHWC convolution: output channels vectorized, a block of output columns per tile."""
    return _schedule_contraction(outs, ("conv2d_nhwc",), 3, 2)


def schedule_conv2d_hwcn(outs):
    """HWCN convolution: the batch axis vectorized, a block of output channels per tile."""
    return _schedule_contraction(outs, ("conv2d_hwcn",), 3, 2)


def schedule_conv1d_ncw(outs):
    """NCW convolution: output width vectorized, a block of output channels per tile."""
    return _schedule_contraction(outs, ("conv1d_ncw",), 2, 1)


def schedule_conv1d_nwc(outs):
    """NWC convolution: output channels vectorized, a block of output columns per tile."""
    return _schedule_contraction(outs, ("conv1d_nwc",), 2, 1)


def schedule_group_conv1d_ncw(outs):
    """Grouped NCW convolution: output width vectorized, a block of output channels."""
    return _schedule_contraction(outs, ("group_conv1d_ncw",), 2, 1)


def schedule_group_conv1d_nwc(outs):
    """Grouped NWC convolution: output channels vectorized, a block of output columns."""
    return _schedule_contraction(outs, ("group_conv1d_nwc",), 2, 1)


def schedule_conv1d_transpose_ncw(outs):
    """Transposed NCW convolution (its dilated, padded input computed at the root)."""
    return _schedule_contraction(outs, ("conv1d_transpose_ncw",), 2, 1)


def schedule_group_conv2d_nchw(outs):
    """Grouped NCHW convolution: output width vectorized, a block of output channels."""
    return _schedule_contraction(outs, ("group_conv2d_nchw",), 3, 1)


def schedule_group_conv2d_nhwc(outs):
    """Grouped NHWC convolution: output channels vectorized, a block of output columns."""
    return _schedule_contraction(outs, ("group_conv2d_nhwc",), 3, 2)


def schedule_conv3d_ncdhw(outs):
    """NCDHW convolution: output width vectorized, a block of output channels per tile."""
    return _schedule_contraction(outs, ("conv3d_ncdhw",), 4, 1)


def schedule_correlation_nchw(outs):
    """Correlation: output width vectorized (the division stage its epilogue)."""
    return _schedule_contraction(outs, ("correlation_nchw",), 3, None)


def schedule_depthwise_conv2d_nchw(outs):
    """NCHW depthwise convolution: output width vectorized."""
    return _schedule_contraction(outs, ("depthwise_conv2d_nchw",), 3, None)


def schedule_depthwise_conv2d_nhwc(outs):
    """NHWC depthwise convolution: channels vectorized, a block of output columns."""
    return _schedule_contraction(outs, ("depthwise_conv2d_nhwc",), 3, 2)


def schedule_conv2d_transpose_nchw(outs):
    """Transposed NCHW convolution (its dilated, padded input computed at the root)."""
    return _schedule_contraction(outs, ("conv2d_transpose_nchw",), 3, 1)


def schedule_dense(outs):
    """dense / matmul: output columns vectorized, a block of rows per tile; a weight read
    transposed (dense's ``weight[j, k]``) is first packed so each step loads one vector."""
    return _schedule_contraction(outs, ("dense", "matmul"), 1, 0, keep_pad=False, pack=True)


schedule_matmul = schedule_dense
schedule_dense_nopack = schedule_dense    # TVM 0.18's two x86 dense schedules


def schedule_dense_pack(outs):
    """dense with a packed weight (``nn.dense_pack``: its column blocks contiguous, so no
    packing stage) or a plain dense / matmul (packed by the schedule as ``schedule_dense``):
    output columns vectorized, a block of rows per tile."""
    return _schedule_contraction(outs, ("dense", "matmul", "dense_pack"), 1, 0,
                                 keep_pad=False, pack=True)


def schedule_batch_matmul(outs):
    """batch_matmul: output columns vectorized, a block of rows per tile (a transposed
    ``tensor_b`` packed first, as for dense)."""
    return _schedule_contraction(outs, ("batch_matmul",), 2, 1, keep_pad=False, pack=True)


def schedule_roi_align(outs):
    """ROI align / ROI pooling: the ROI and channel loops fused and parallel; each bin's
    reduction stays inside its output element (its extent depends on the ROI, and for ROI
    pooling on the bin, so it cannot move outside a vectorized axis)."""
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    inline_injective(s, outs)
    for st in compute_stages(s):
        axes = list(st.op.axis)
        if len(axes) >= 2:
            st.parallel(st.fuse(axes[0], axes[1]))
    return s


schedule_roi_pool = schedule_roi_align


def schedule_lstm(outs):
    """``nn.lstm``: the input-to-hidden matmul (outside the scan) vectorized across gate
    columns with its rows parallel; inside the scan, whose steps stay serial, the
    hidden-to-hidden product (and the projection) keep a vector of output columns with the
    reduction outside it. The other per-step stages stay at the root of the step."""
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    for st in compute_stages(s):
        t = st.op.output(0)
        if st.op.name in ("Xi2h", "Xi2h_bias"):
            parallel_vectorize(s, t)
        elif st.op.name in ("s_h2h", "next_h_proj"):
            axes, raxes = list(st.op.axis), list(st.op.reduce_axis)
            lanes = _lanes(t.dtype)
            ext = extent(axes[-1])
            if ext is not None and ext >= lanes and _vectorizable(t):
                jo, ji = st.split(axes[-1], factor=lanes)
                st.reorder(*axes[:-1], jo, *raxes, ji)
                st.vectorize(ji)
    return s


__all__ = ["schedule_roi_align", "schedule_roi_pool", "schedule_lstm", "schedule_injective", "schedule_injective_from_existing", "schedule_elemwise",
           "schedule_broadcast", "schedule_concatenate", "schedule_reduce", "schedule_softmax",
           "schedule_pool", "schedule_pool_grad", "schedule_unique", "schedule_scan",
           "schedule_sort", "schedule_argsort", "schedule_topk",
           "schedule_adaptive_pool", "schedule_lrn", "schedule_reorg", "schedule_argwhere",
           "schedule_batch_norm",
           "schedule_conv2d_nchw", "schedule_conv2d_nhwc", "schedule_conv2d_hwcn",
           "schedule_conv1d_ncw", "schedule_conv1d_nwc", "schedule_group_conv1d_ncw",
           "schedule_group_conv1d_nwc", "schedule_conv1d_transpose_ncw", "schedule_conv3d_ncdhw", "schedule_correlation_nchw",
           "schedule_group_conv2d_nchw", "schedule_group_conv2d_nhwc",
           "schedule_depthwise_conv2d_nchw", "schedule_depthwise_conv2d_nhwc",
           "schedule_conv2d_transpose_nchw", "schedule_dense", "schedule_matmul",
           "schedule_dense_nopack", "schedule_dense_pack",
           "schedule_batch_matmul", "parallel_vectorize", "tile_reduction",
           "pack_transposed_operand"]
