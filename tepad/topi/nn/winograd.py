"""Winograd 2-D convolutions (TVM's ``topi.nn.conv2d_winograd_nchw`` / ``_nhwc``, their
``_without_weight_transform`` forms, ``conv2d_winograd_weight_transform``, TVM 0.6's
``conv2d_winograd_without_weight_transform`` and the NNPACK-layout pair), the 3-D weight
transform ``conv3d_winograd_weight_transform`` and the arm GEMM weight layout
``conv2d_gemm_weight_transform``.

A stride-1 convolution with an r x r kernel is computed on output tiles of m x m
(F(m x m, r x r), ``alpha = m + r - 1``), in TVM's stages: ``data_pad`` (the input padded,
with extra rows / columns after so every tile is in range), ``input_tile`` (the alpha x alpha
input tiles), ``data_pack`` (B^T d B), ``kernel_pack`` (G g G^T, unless pre-computed),
``bgemm`` (per (eps, nu): a matrix product over the input channels), ``inverse``
(A^T M A) and the output stage ``conv2d_winograd`` cut to the output size. The matrices are
``winograd_util``'s."""
from __future__ import annotations

from ...errors import TepadError
from ...target import generic_func
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir.expr import floordiv, floormod
from .pad import dilate, pad
from .utils import const_extents, get_pad_tuple, get_pad_tuple3d, ints
from .winograd_util import winograd_transform_matrices


def _check4(name, data, weight, nd=4):
    for t, what in ((data, "data"), (weight, "weight")):
        if not isinstance(t, Tensor) or len(t.shape) != nd:
            raise TepadError(f"{name}: {what} must be a {nd}-d te.Tensor, got {t!r}")


def _winograd(name, layout, data, read_kernel, KH, KW, CI, CO, strides, padding, out_dtype,
              m, kernel_pack=None, tag="conv2d_winograd"):
    """The winograd stages (module doc) for ``layout`` "NCHW" / "NHWC" data; the kernel
    comes from ``read_kernel(co, ci, kh, kw)`` (raw taps, transformed here into
    ``kernel_pack`` (alpha, alpha, CI, CO)) unless ``kernel_pack(eps, nu, ci, co)`` reads a
    pre-computed one."""
    sh, sw = ints(strides, 2, f"{name}: strides")
    if (sh, sw) != (1, 1):
        raise TepadError(f"{name}: winograd needs stride 1, got {(sh, sw)}")
    if KH != KW:
        raise TepadError(f"{name}: winograd needs a square kernel, got {KH}x{KW}")
    out_dtype = out_dtype or data.dtype
    if layout == "NCHW":
        N, C, H, W = const_extents(data.shape, name, ("N", "C", "H", "W"))
    else:
        N, H, W, C = const_extents(data.shape, name, ("N", "H", "W", "C"))
    if C != CI:
        raise TepadError(f"{name}: {data.name} has {C} channels but the kernel expects {CI}")
    r = KW
    alpha = m + r - 1
    pt, pl, pb, pr = get_pad_tuple(padding, (KH, KW))
    OH, OW = H + pt + pb - KH + 1, W + pl + pr - KW + 1
    if OH <= 0 or OW <= 0:
        raise TepadError(f"{name}: a {KH}x{KW} kernel does not fit the {H}x{W} input padded "
                         f"by {(pt, pl, pb, pr)}")
    nH, nW = (OH + m - 1) // m, (OW + m - 1) // m
    P = N * nH * nW
    # extra padding after so that the last tile's alpha rows / columns exist
    eb, er = pb + nH * m - OH, pr + nW * m - OW
    A, B, G = winograd_transform_matrices(m, r, out_dtype)
    if layout == "NCHW":
        data_pad = pad(data, (0, 0, pt, pl), (0, 0, eb, er), 0.0, name="data_pad")
        input_tile = compute(
            (CI, P, alpha, alpha),
            lambda ci, p, eps, nu: data_pad[floordiv(p, nH * nW), ci,
                                            floormod(floordiv(p, nW), nH) * m + eps,
                                            floormod(p, nW) * m + nu],
            name="input_tile")
    else:
        data_pad = pad(data, (0, pt, pl, 0), (0, eb, er, 0), 0.0, name="data_pad")
        input_tile = compute(
            (CI, P, alpha, alpha),
            lambda ci, p, eps, nu: data_pad[floordiv(p, nH * nW),
                                            floormod(floordiv(p, nW), nH) * m + eps,
                                            floormod(p, nW) * m + nu, ci],
            name="input_tile")
    if kernel_pack is None:
        r_kh = reduce_axis((0, KH), name="r_kh")
        r_kw = reduce_axis((0, KW), name="r_kw")
        kp = compute(
            (alpha, alpha, CI, CO),
            lambda eps, nu, ci, co: te_op.sum(
                read_kernel(co, ci, r_kh, r_kw).astype(out_dtype) * G[eps, r_kh] *
                G[nu, r_kw], axis=[r_kh, r_kw]),
            name="kernel_pack")
        kernel_pack = lambda eps, nu, ci, co: kp[eps, nu, ci, co]  # noqa: E731
    r_a = reduce_axis((0, alpha), name="r_a")
    r_b = reduce_axis((0, alpha), name="r_b")
    data_pack = compute(
        (alpha, alpha, CI, P),
        lambda eps, nu, ci, p: te_op.sum(
            input_tile[ci, p, r_a, r_b].astype(out_dtype) * B[r_a, eps] * B[r_b, nu],
            axis=[r_a, r_b]),
        name="data_pack")
    rc = reduce_axis((0, CI), name="ci")
    bgemm = compute(
        (alpha, alpha, CO, P),
        lambda eps, nu, co, p: te_op.sum(
            data_pack[eps, nu, rc, p] * kernel_pack(eps, nu, rc, co).astype(out_dtype),
            axis=[rc]),
        name="bgemm")
    r_a2 = reduce_axis((0, alpha), name="r_a")
    r_b2 = reduce_axis((0, alpha), name="r_b")
    inverse = compute(
        (CO, P, m, m),
        lambda co, p, vh, vw: te_op.sum(
            bgemm[r_a2, r_b2, co, p] * A[r_a2, vh] * A[r_b2, vw], axis=[r_a2, r_b2]),
        name="inverse")

    def tile_of(n, h, w):
        return n * (nH * nW) + floordiv(h, m) * nW + floordiv(w, m)
    if layout == "NCHW":
        return compute((N, CO, OH, OW),
                       lambda n, co, h, w: inverse[co, tile_of(n, h, w), floormod(h, m),
                                                   floormod(w, m)],
                       name="conv2d_winograd", tag=tag)
    return compute((N, OH, OW, CO),
                   lambda n, h, w, co: inverse[co, tile_of(n, h, w), floormod(h, m),
                                               floormod(w, m)],
                   name="conv2d_winograd", tag=tag)


def _dilated(name, weight, dilation, axes):
    dh, dw = ints(dilation, 2, f"{name}: dilation")
    if (dh, dw) == (1, 1):
        return weight
    strides = [1] * 4
    strides[axes[0]], strides[axes[1]] = dh, dw
    return dilate(weight, strides)


def conv2d_winograd_nchw_impl(data, weight, strides, padding, dilation, out_dtype, tile_size,
                              pre_computed=False, kernel_layout="OIHW", tag="conv2d_winograd"):
    """The NCHW winograd convolution with an explicit ``tile_size``: ``weight`` raw
    (``kernel_layout`` "OIHW", dilated here when ``dilation`` > 1) or, ``pre_computed``,
    the transformed (alpha, alpha, CI, CO) (``kernel_layout`` "OIHW") or (alpha, alpha,
    CO, CI) (``kernel_layout`` "pre_OI", as ``conv2d_winograd_weight_transform`` gives)."""
    name = "conv2d_winograd_nchw"
    _check4(name, data, weight)
    if not pre_computed:
        weight = _dilated(name, weight, dilation, (2, 3))
        CO, CI, KH, KW = const_extents(weight.shape, name, ("CO", "CI", "KH", "KW"))
        return _winograd(name, "NCHW", data, lambda co, ci, h, w: weight[co, ci, h, w],
                         KH, KW, CI, CO, strides, padding, out_dtype, tile_size, tag=tag)
    if ints(dilation, 2, f"{name}: dilation") != [1, 1]:
        raise TepadError(f"{name}: a pre-computed kernel takes no dilation, got {dilation!r}")
    if kernel_layout == "pre_OI":
        alpha, _, CO, CI = const_extents(weight.shape, name, ("alpha", "alpha", "CO", "CI"))
        reader = lambda e, n, ci, co: weight[e, n, co, ci]  # noqa: E731
    else:
        alpha, _, CI, CO = const_extents(weight.shape, name, ("alpha", "alpha", "CI", "CO"))
        reader = lambda e, n, ci, co: weight[e, n, ci, co]  # noqa: E731
    K = alpha + 1 - tile_size
    if K < 1:
        raise TepadError(f"{name}: a transformed kernel of alpha {alpha} does not fit tile "
                         f"size {tile_size}")
    return _winograd(name, "NCHW", data, None, K, K, CI, CO, strides, padding, out_dtype,
                     tile_size, kernel_pack=reader, tag=tag)


def conv2d_winograd_nhwc_impl(data, weight, strides, padding, dilation, out_dtype, tile_size,
                              pre_computed=False, tag="conv2d_winograd"):
    """The NHWC winograd convolution with an explicit ``tile_size``: ``weight`` raw HWIO
    or, ``pre_computed``, the transformed (alpha, alpha, CO, CI)."""
    name = "conv2d_winograd_nhwc"
    _check4(name, data, weight)
    if not pre_computed:
        weight = _dilated(name, weight, dilation, (0, 1))
        KH, KW, CI, CO = const_extents(weight.shape, name, ("KH", "KW", "CI", "CO"))
        return _winograd(name, "NHWC", data, lambda co, ci, h, w: weight[h, w, ci, co],
                         KH, KW, CI, CO, strides, padding, out_dtype, tile_size, tag=tag)
    if ints(dilation, 2, f"{name}: dilation") != [1, 1]:
        raise TepadError(f"{name}: a pre-computed kernel takes no dilation, got {dilation!r}")
    alpha, _, CO, CI = const_extents(weight.shape, name, ("alpha", "alpha", "CO", "CI"))
    K = alpha + 1 - tile_size
    return _winograd(name, "NHWC", data, None, K, K, CI, CO, strides, padding, out_dtype,
                     tile_size, kernel_pack=lambda e, n, ci, co: weight[e, n, co, ci], tag=tag)


def _no_rewrite(name, auto_scheduler_rewritten_layout, meta_schedule_original_shape):
    if auto_scheduler_rewritten_layout or meta_schedule_original_shape:
        raise TepadError(f"{name}: auto-scheduler / meta-schedule layout rewriting is not "
                         "supported; leave those arguments unset")


@generic_func
def conv2d_winograd_nhwc(data, weight, strides, padding, dilation, out_dtype,
                         pre_computed=False, auto_scheduler_rewritten_layout="",
                         meta_schedule_original_shape=None):
    """Winograd F(4x4, r x r) convolution of NHWC ``data`` with an HWIO ``weight`` (or,
    ``pre_computed``, its (alpha, alpha, CO, CI) transform): (N, out_h, out_w, CO). A
    generic function (``.register(target keys)``) as in TVM."""
    _no_rewrite("conv2d_winograd_nhwc", auto_scheduler_rewritten_layout,
                meta_schedule_original_shape)
    return conv2d_winograd_nhwc_impl(data, weight, strides, padding, dilation, out_dtype, 4,
                                     pre_computed)


@generic_func
def conv2d_winograd_nchw(data, weight, strides, padding, dilation, out_dtype,
                         pre_computed=False, auto_scheduler_rewritten_layout="",
                         meta_schedule_original_shape=None):
    """Winograd F(4x4, r x r) convolution of NCHW ``data`` with an OIHW ``weight`` (or,
    ``pre_computed``, the (alpha, alpha, CI, CO) ``kernel_pack``): (N, CO, out_h, out_w)."""
    _no_rewrite("conv2d_winograd_nchw", auto_scheduler_rewritten_layout,
                meta_schedule_original_shape)
    return conv2d_winograd_nchw_impl(data, weight, strides, padding, dilation, out_dtype, 4,
                                     pre_computed)


def conv2d_winograd_nhwc_without_weight_transform(data, weight, strides, padding, dilation,
                                                  out_dtype, auto_scheduler_rewritten_layout="",
                                                  meta_schedule_original_shape=None):
    """``conv2d_winograd_nhwc`` of a pre-computed (alpha, alpha, CO, CI) ``weight``."""
    return conv2d_winograd_nhwc(data, weight, strides, padding, dilation, out_dtype,
                                pre_computed=True,
                                auto_scheduler_rewritten_layout=auto_scheduler_rewritten_layout,
                                meta_schedule_original_shape=meta_schedule_original_shape)


def conv2d_winograd_nchw_without_weight_transform(data, weight, strides, padding, dilation,
                                                  out_dtype, auto_scheduler_rewritten_layout="",
                                                  meta_schedule_original_shape=None):
    """``conv2d_winograd_nchw`` of a pre-computed (alpha, alpha, CI, CO) ``weight``."""
    return conv2d_winograd_nchw(data, weight, strides, padding, dilation, out_dtype,
                                pre_computed=True,
                                auto_scheduler_rewritten_layout=auto_scheduler_rewritten_layout,
                                meta_schedule_original_shape=meta_schedule_original_shape)


@generic_func
def conv2d_winograd_without_weight_transform(input, filter, strides, padding, dilation, layout,
                                             out_dtype, tile_size):
    """TVM 0.6's entry: ``filter`` transformed by ``conv2d_winograd_weight_transform``
    ((alpha, alpha, CO, CI)), ``layout`` "NCHW" or "NHWC" data, F(tile_size x tile_size)
    tiles. (TVM 0.6 only raised here unless a target registered one.)"""
    if layout == "NCHW":
        return conv2d_winograd_nchw_impl(input, filter, strides, padding, dilation, out_dtype,
                                         tile_size, pre_computed=True, kernel_layout="pre_OI")
    if layout == "NHWC":
        return conv2d_winograd_nhwc_impl(input, filter, strides, padding, dilation, out_dtype,
                                         tile_size, pre_computed=True)
    raise TepadError(f"conv2d_winograd_without_weight_transform: layout {layout!r} is not "
                     "supported; use 'NCHW' or 'NHWC'")


def conv2d_winograd_weight_transform(kernel: Tensor, tile_size: int):
    """The OIHW ``kernel`` (square) transformed for F(tile_size, K) tiles: (alpha, alpha,
    CO, CI), ``G g G^T`` per channel pair, stage ``transform_weight``."""
    name = "conv2d_winograd_weight_transform"
    if not isinstance(kernel, Tensor) or len(kernel.shape) != 4:
        raise TepadError(f"{name}: kernel must be a 4-d te.Tensor (CO, CI, K, K), got "
                         f"{kernel!r}")
    CO, CI, KH, KW = const_extents(kernel.shape, name, ("CO", "CI", "KH", "KW"))
    if KH != KW:
        raise TepadError(f"{name}: only square kernels, got {KH}x{KW}")
    alpha = tile_size + KW - 1
    _, _, G = winograd_transform_matrices(tile_size, KW, kernel.dtype)
    r_kh = reduce_axis((0, KH), name="r_kh")
    r_kw = reduce_axis((0, KW), name="r_kw")
    return compute(
        (alpha, alpha, CO, CI),
        lambda eps, nu, co, ci: te_op.sum(
            kernel[co, ci, r_kh, r_kw] * G[eps, r_kh] * G[nu, r_kw], axis=[r_kh, r_kw]),
        name="transform_weight")


def conv3d_winograd_weight_transform(kernel: Tensor, tile_size: int):
    """The OIDHW ``kernel`` transformed for 3-D winograd: (alpha, alpha, alpha, CO, CI) when
    the depth is transformed too (2 < KD < 8 and KD == KH == KW), else (alpha, alpha, KD, CO,
    CI) with only height and width transformed; stage ``transform_weight``."""
    name = "conv3d_winograd_weight_transform"
    if not isinstance(kernel, Tensor) or len(kernel.shape) != 5:
        raise TepadError(f"{name}: kernel must be a 5-d te.Tensor (CO, CI, KD, KH, KW), got "
                         f"{kernel!r}")
    CO, CI, KD, KH, KW = const_extents(kernel.shape, name, ("CO", "CI", "KD", "KH", "KW"))
    depth = 2 < KD < 8 and KD == KH
    if KH != KW or (depth and KD != KW):
        raise TepadError(f"{name}: the kernel must be N x N (or D x N x N), got "
                         f"{KD}x{KH}x{KW}")
    alpha = tile_size + KH - 1
    _, _, G = winograd_transform_matrices(tile_size, KH, kernel.dtype)
    r_kh = reduce_axis((0, KH), name="r_kh")
    r_kw = reduce_axis((0, KW), name="r_kw")
    if depth:
        r_kd = reduce_axis((0, KD), name="r_kd")
        return compute(
            (alpha, alpha, alpha, CO, CI),
            lambda omg, eps, nu, co, ci: te_op.sum(
                kernel[co, ci, r_kd, r_kh, r_kw] * G[omg, r_kd] * G[eps, r_kh] * G[nu, r_kw],
                axis=[r_kd, r_kh, r_kw]),
            name="transform_weight")
    return compute(
        (alpha, alpha, KD, CO, CI),
        lambda eps, nu, d, co, ci: te_op.sum(
            kernel[co, ci, d, r_kh, r_kw] * G[eps, r_kh] * G[nu, r_kw], axis=[r_kh, r_kw]),
        name="transform_weight")


def conv3d_winograd_ncdhw_impl(data, kernel, strides, padding, dilation, out_dtype,
                               tile_size, tag="conv3d_ncdhw_winograd"):
    """Winograd NCDHW convolution of an OIDHW ``kernel`` (stride 1; a dilation dilates the
    kernel first). With 2 < KD < 8 and KD == KH == KW all three axes are tiled
    (F(m^3, r^3): ``data_pack`` / ``bgemm`` / ``inverse`` over alpha^3 points); otherwise
    height and width are tiled and the depth taps are summed in ``bgemm`` directly. Output
    stage ``conv3d_winograd`` (tag ``tag``)."""
    name = "conv3d_ncdhw_winograd"
    _check4(name, data, kernel, nd=5)
    if ints(strides, 3, f"{name}: strides") != [1, 1, 1]:
        raise TepadError(f"{name}: winograd needs stride 1, got {strides!r}")
    dd, dh, dw = ints(dilation, 3, f"{name}: dilation")
    if (dd, dh, dw) != (1, 1, 1):
        kernel = dilate(kernel, [1, 1, dd, dh, dw])
    out_dtype = out_dtype or data.dtype
    N, C, D, H, W = const_extents(data.shape, name, ("N", "C", "D", "H", "W"))
    CO, CI, KD, KH, KW = const_extents(kernel.shape, name, ("CO", "CI", "KD", "KH", "KW"))
    if C != CI:
        raise TepadError(f"{name}: {data.name} has {C} channels but the kernel expects {CI}")
    if KH != KW:
        raise TepadError(f"{name}: winograd needs KH == KW, got {KH}x{KW}")
    full = 2 < KD < 8 and KD == KH
    m, r = tile_size, KH
    alpha = m + r - 1
    f, t, l, bk, b, rt = get_pad_tuple3d(padding, (KD, KH, KW))
    OD, OH, OW = D + f + bk - KD + 1, H + t + b - KH + 1, W + l + rt - KW + 1
    if min(OD, OH, OW) <= 0:
        raise TepadError(f"{name}: a {KD}x{KH}x{KW} kernel does not fit the {D}x{H}x{W} input "
                         f"padded by {(f, t, l, bk, b, rt)}")
    nD = (OD + m - 1) // m if full else OD
    nH, nW = (OH + m - 1) // m, (OW + m - 1) // m
    ed = (nD * m - OD) if full else 0
    data_pad = pad(data, (0, 0, f, t, l), (0, 0, bk + ed, b + nH * m - OH, rt + nW * m - OW),
                   0.0, name="data_pad")
    A, B, G = winograd_transform_matrices(m, r, out_dtype)
    ci = reduce_axis((0, CI), name="ci")
    if full:
        P = N * nD * nH * nW

        def at(p):
            return (floordiv(p, nD * nH * nW), floormod(floordiv(p, nH * nW), nD) * m,
                    floormod(floordiv(p, nW), nH) * m, floormod(p, nW) * m)
        input_tile = compute(
            (CI, P, alpha, alpha, alpha),
            lambda c, p, o, e, n: data_pad[at(p)[0], c, at(p)[1] + o, at(p)[2] + e,
                                           at(p)[3] + n], name="input_tile")
        rk = [reduce_axis((0, KD), name="r_kd"), reduce_axis((0, KH), name="r_kh"),
              reduce_axis((0, KW), name="r_kw")]
        kp = compute(
            (alpha, alpha, alpha, CI, CO),
            lambda o, e, n, c, co: te_op.sum(
                kernel[co, c, rk[0], rk[1], rk[2]].astype(out_dtype) * G[o, rk[0]] *
                G[e, rk[1]] * G[n, rk[2]], axis=rk), name="kernel_pack")
        ra = [reduce_axis((0, alpha), name=nm) for nm in ("r_a", "r_b", "r_c")]
        data_pack = compute(
            (alpha, alpha, alpha, CI, P),
            lambda o, e, n, c, p: te_op.sum(
                input_tile[c, p, ra[0], ra[1], ra[2]].astype(out_dtype) * B[ra[0], o] *
                B[ra[1], e] * B[ra[2], n], axis=ra), name="data_pack")
        bgemm = compute(
            (alpha, alpha, alpha, CO, P),
            lambda o, e, n, co, p: te_op.sum(data_pack[o, e, n, ci, p] * kp[o, e, n, ci, co],
                                             axis=[ci]), name="bgemm")
        rb = [reduce_axis((0, alpha), name=nm) for nm in ("r_a", "r_b", "r_c")]
        inverse = compute(
            (CO, P, m, m, m),
            lambda co, p, vd, vh, vw: te_op.sum(
                bgemm[rb[0], rb[1], rb[2], co, p] * A[rb[0], vd] * A[rb[1], vh] *
                A[rb[2], vw], axis=rb), name="inverse")
        return compute(
            (N, CO, OD, OH, OW),
            lambda n, co, z, y, x: inverse[
                co, n * (nD * nH * nW) + floordiv(z, m) * (nH * nW) + floordiv(y, m) * nW +
                floordiv(x, m), floormod(z, m), floormod(y, m), floormod(x, m)],
            name="conv3d_winograd", tag=tag)
    P = N * nH * nW
    Dp = D + f + bk
    input_tile = compute(
        (CI, Dp, P, alpha, alpha),
        lambda c, z, p, e, n: data_pad[floordiv(p, nH * nW), c, z,
                                       floormod(floordiv(p, nW), nH) * m + e,
                                       floormod(p, nW) * m + n], name="input_tile")
    rk = [reduce_axis((0, KH), name="r_kh"), reduce_axis((0, KW), name="r_kw")]
    kp = compute(
        (alpha, alpha, KD, CI, CO),
        lambda e, n, z, c, co: te_op.sum(
            kernel[co, c, z, rk[0], rk[1]].astype(out_dtype) * G[e, rk[0]] * G[n, rk[1]],
            axis=rk), name="kernel_pack")
    ra = [reduce_axis((0, alpha), name=nm) for nm in ("r_a", "r_b")]
    data_pack = compute(
        (alpha, alpha, CI, Dp, P),
        lambda e, n, c, z, p: te_op.sum(
            input_tile[c, z, p, ra[0], ra[1]].astype(out_dtype) * B[ra[0], e] * B[ra[1], n],
            axis=ra), name="data_pack")
    rz = reduce_axis((0, KD), name="r_kd")
    bgemm = compute(
        (alpha, alpha, CO, OD, P),
        lambda e, n, co, z, p: te_op.sum(data_pack[e, n, ci, z + rz, p] * kp[e, n, rz, ci, co],
                                         axis=[ci, rz]), name="bgemm")
    rb = [reduce_axis((0, alpha), name=nm) for nm in ("r_a", "r_b")]
    inverse = compute(
        (CO, OD, P, m, m),
        lambda co, z, p, vh, vw: te_op.sum(
            bgemm[rb[0], rb[1], co, z, p] * A[rb[0], vh] * A[rb[1], vw], axis=rb),
        name="inverse")
    return compute(
        (N, CO, OD, OH, OW),
        lambda n, co, z, y, x: inverse[co, z, n * (nH * nW) + floordiv(y, m) * nW +
                                       floordiv(x, m), floormod(y, m), floormod(x, m)],
        name="conv3d_winograd", tag=tag)


#: the tile NNPACK's 8x8 winograd transforms use: F(6x6, 3x3)
_NNPACK_TILE = 6


def conv2d_winograd_nnpack_weight_transform(kernel: Tensor, convolution_algorithm,
                                            out_dtype):
    """The OIHW 3x3 ``kernel`` transformed for 8x8 winograd tiles (NNPACK's F(6x6, 3x3)),
    as (CO, CI, 8, 8) in ``out_dtype`` (stage ``transform_weight``). tepad computes the
    transform itself (no NNPACK library); ``convolution_algorithm`` is accepted as TVM's
    signature has it. Pair with ``conv2d_winograd_nnpack_without_weight_transform``."""
    name = "conv2d_winograd_nnpack_weight_transform"
    if not isinstance(kernel, Tensor) or len(kernel.shape) != 4:
        raise TepadError(f"{name}: kernel must be a 4-d te.Tensor (CO, CI, 3, 3), got "
                         f"{kernel!r}")
    CO, CI, KH, KW = const_extents(kernel.shape, name, ("CO", "CI", "KH", "KW"))
    if (KH, KW) != (3, 3):
        raise TepadError(f"{name}: only 3x3 kernels (as NNPACK), got {KH}x{KW}")
    out_dtype = out_dtype or kernel.dtype
    _, _, G = winograd_transform_matrices(_NNPACK_TILE, 3, out_dtype)
    r_kh = reduce_axis((0, 3), name="r_kh")
    r_kw = reduce_axis((0, 3), name="r_kw")
    return compute(
        (CO, CI, 8, 8),
        lambda co, ci, eps, nu: te_op.sum(
            kernel[co, ci, r_kh, r_kw].astype(out_dtype) * G[eps, r_kh] * G[nu, r_kw],
            axis=[r_kh, r_kw]),
        name="transform_weight")


@generic_func
def conv2d_winograd_nnpack_without_weight_transform(input, filter, bias, strides, padding,
                                                    dilation, layout, out_dtype):
    """NCHW convolution by 8x8 winograd tiles with ``filter`` from
    ``conv2d_winograd_nnpack_weight_transform`` ((CO, CI, 8, 8)); ``bias`` (CO,) is added
    when given. ``layout`` must be "NCHW" and ``dilation`` 1."""
    name = "conv2d_winograd_nnpack_without_weight_transform"
    if layout != "NCHW":
        raise TepadError(f"{name}: layout must be 'NCHW', got {layout!r}")
    _check4(name, input, filter)
    if ints(dilation, 2, f"{name}: dilation") != [1, 1]:
        raise TepadError(f"{name}: dilation must be 1, got {dilation!r}")
    CO, CI, a1, a2 = const_extents(filter.shape, name, ("CO", "CI", "8", "8"))
    if (a1, a2) != (8, 8):
        raise TepadError(f"{name}: filter must be (CO, CI, 8, 8), got {filter.shape}")
    out = _winograd(name, "NCHW", input, None, 3, 3, CI, CO, strides, padding, out_dtype,
                    _NNPACK_TILE, kernel_pack=lambda e, n, ci, co: filter[co, ci, e, n])
    if bias is None:
        return out
    return compute(out.shape, lambda n, c, h, w: out[n, c, h, w] + bias[c].astype(out.dtype),
                   name="bias_add", tag="broadcast")


def conv2d_gemm_weight_transform(kernel: Tensor, tile_N: int, tile_K: int,
                                 use_scalable_vectors=False, use_sme=False):
    """The HWIO ``kernel`` flattened to the (K = KH * KW * CI, N = CO) matrix of a GEMM
    convolution (stage ``weight_flatten``), padded to multiples of ``tile_K`` / ``tile_N``
    (``weight_padding``) and blocked as (N / tile_N, K / tile_K, tile_K, tile_N)
    (``weight_block_reshape``; int8 / uint8: (.., tile_N, tile_K)). With
    ``use_scalable_vectors`` / ``use_sme`` the padded flat matrix itself (float16 with SME:
    its transpose, ``weight_transpose``)."""
    name = "conv2d_gemm_weight_transform"
    if not isinstance(kernel, Tensor) or len(kernel.shape) != 4:
        raise TepadError(f"{name}: kernel must be a 4-d HWIO te.Tensor, got {kernel!r}")
    if not (isinstance(tile_N, int) and isinstance(tile_K, int) and tile_N > 0 and tile_K > 0):
        raise TepadError(f"{name}: tile_N and tile_K must be positive ints, got "
                         f"{tile_N!r}, {tile_K!r}")
    KH, KW, IC, OC = const_extents(kernel.shape, name, ("KH", "KW", "IC", "OC"))
    K, N = KH * KW * IC, OC
    flat = compute((K, N), lambda x, y: kernel[floordiv(floordiv(x, IC), KW),
                                               floormod(floordiv(x, IC), KW),
                                               floormod(x, IC), y], name="weight_flatten")
    pad_N, pad_K = (-N) % tile_N, (-K) % tile_K
    if pad_N or pad_K:
        flat = pad(flat, (0, 0), (pad_K, pad_N), 0.0, name="weight_padding")
    Np, Kp = N + pad_N, K + pad_K
    if use_sme and kernel.dtype == "float16":
        return compute((Np, Kp), lambda x, y: flat[y, x], name="weight_transpose")
    if use_scalable_vectors or use_sme:
        return flat
    if kernel.dtype in ("int8", "uint8"):
        return compute((Np // tile_N, Kp // tile_K, tile_N, tile_K),
                       lambda x, y, z, w: flat[w + tile_K * y, z + tile_N * x],
                       name="weight_block_reshape")
    return compute((Np // tile_N, Kp // tile_K, tile_K, tile_N),
                   lambda x, y, z, w: flat[z + tile_K * y, w + tile_N * x],
                   name="weight_block_reshape")


__all__ = ["conv2d_winograd_nchw", "conv2d_winograd_nhwc",
           "conv2d_winograd_nchw_without_weight_transform",
           "conv2d_winograd_nhwc_without_weight_transform",
           "conv2d_winograd_without_weight_transform", "conv2d_winograd_weight_transform",
           "conv3d_winograd_weight_transform", "conv2d_winograd_nnpack_weight_transform",
           "conv2d_winograd_nnpack_without_weight_transform", "conv2d_gemm_weight_transform",
           "conv2d_winograd_nchw_impl", "conv2d_winograd_nhwc_impl",
           "conv3d_winograd_ncdhw_impl"]
