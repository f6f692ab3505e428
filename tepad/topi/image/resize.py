"""``topi.image.resize1d`` / ``resize2d``: nearest-neighbour, linear and cubic resizing with
ONNX's coordinate transformation modes, as TVM 0.18 defines them."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute
from ...tir import op as tirop
from ...tir.expr import IntImm, const, convert
from ..nn.utils import const_extents

_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
          "tf_half_pixel_for_nn", "tf_crop_and_resize")
_ROUNDING = ("", "round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _in_coord(x, in_size, out_size, mode, roi_lo, roi_hi):
    """The input coordinate (float32) that output index ``x`` maps to."""
    xf = x.astype("float32")
    scale = const(in_size / out_size, "float32")
    if mode == "half_pixel":
        return (xf + 0.5) * scale - 0.5
    if mode == "align_corners":
        return xf * const((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0, "float32")
    if mode == "asymmetric":
        return xf * scale
    if mode == "pytorch_half_pixel":
        return (xf + 0.5) * scale - 0.5 if out_size > 1 else const(0.0, "float32")
    if mode == "tf_half_pixel_for_nn":
        return (xf + 0.5) * scale
    if out_size > 1:        # tf_crop_and_resize
        step = (roi_hi - roi_lo) * (in_size - 1) / (out_size - 1)
        return const(roi_lo * (in_size - 1), "float32") + xf * const(step, "float32")
    return const(0.5 * (roi_lo + roi_hi) * (in_size - 1), "float32")


def _nearest(v, rounding):
    if rounding == "round":
        return tirop.round(v).astype("int32")
    if rounding == "round_prefer_floor":
        return tirop.ceil(v - 0.5).astype("int32")
    if rounding == "round_prefer_ceil":
        return tirop.floor(v + 0.5).astype("int32")
    if rounding == "floor":
        return tirop.floor(v + 1e-5).astype("int32")
    return tirop.ceil(v - 1e-5).astype("int32")


def _cubic_weights(t, alpha):
    t2, t3 = t * t, t * t * t
    return [alpha * (t3 - 2 * t2 + t), (alpha + 2) * t3 - (3 + alpha) * t2 + 1,
            -(alpha + 2) * t3 + (3 + 2 * alpha) * t2 - alpha * t, -alpha * t3 + alpha * t2]


def _resize(what, data, roi, size, layout, method, mode, rounding, alpha, exclude,
            extrapolation_value, out_dtype, names):
    if not isinstance(data, Tensor):
        raise TepadError(f"{what}: data must be a te.Tensor, got {data!r}")
    method = {"bilinear": "linear", "nearest": "nearest_neighbor",
              "bicubic": "cubic"}.get(method.lower(), method.lower())
    if method not in ("nearest_neighbor", "linear", "cubic"):
        raise TepadError(f"{what}: method {method!r}; use 'nearest_neighbor', 'linear' or "
                         "'cubic'")
    if mode not in _MODES:
        raise TepadError(f"{what}: coordinate_transformation_mode {mode!r}; one of {_MODES}")
    if rounding not in _ROUNDING:
        raise TepadError(f"{what}: rounding_method {rounding!r}; one of {_ROUNDING}")
    if len(layout) != len(data.shape) or any(c not in layout for c in names):
        raise TepadError(f"{what}: layout {layout!r} does not fit {data.name} "
                         f"{list(data.shape)} (needs the axes {names})")
    axes = [layout.index(c) for c in names]
    ins = const_extents([data.shape[a] for a in axes], what, names)
    outs = [int(s.value) if isinstance(s, IntImm) else int(s) for s in size]
    if len(outs) != len(names):
        raise TepadError(f"{what}: size {list(size)} needs {len(names)} extents")
    roi = [float(r) for r in roi] if roi is not None else [0.0] * (2 * len(names))
    d = len(names)
    if not rounding:
        rounding = "round" if mode == "align_corners" else "floor"
    out_dtype = out_dtype or data.dtype
    shape = list(data.shape)
    for a, o in zip(axes, outs):
        shape[a] = o

    def body(*idx):
        coords = [_in_coord(idx[a], n, o, mode, roi[k], roi[k + d])
                  for k, (a, n, o) in enumerate(zip(axes, ins, outs))]

        def pixel(pos):
            src = list(idx)
            for a, p, n in zip(axes, pos, ins):
                src[a] = tirop.min(tirop.max(p, 0), n - 1)
            return data[tuple(src)].astype("float32")
        if method == "nearest_neighbor":
            value = pixel([_nearest(c, rounding) for c in coords])
        elif method == "linear":
            base = [tirop.floor(c).astype("int32") for c in coords]
            frac = [c - tirop.floor(c) for c in coords]
            value = None
            for corner in range(1 << d):
                w, pos = None, []
                for k in range(d):
                    bit = (corner >> k) & 1
                    pos.append(base[k] + bit)
                    f = frac[k] if bit else 1.0 - frac[k]
                    w = f if w is None else w * f
                term = pixel(pos) * w
                value = term if value is None else value + term
        else:
            base = [tirop.floor(c).astype("int32") for c in coords]
            weights = []
            for k, c in enumerate(coords):
                ws = _cubic_weights(c - tirop.floor(c), alpha)
                if exclude:
                    ws = [tirop.if_then_else(tirop.any(base[k] - 1 + j < 0,
                                                       base[k] - 1 + j >= ins[k]),
                                             const(0.0, "float32"), w)
                          for j, w in enumerate(ws)]
                    tot = ws[0] + ws[1] + ws[2] + ws[3]
                    ws = [w / tot for w in ws]
                weights.append(ws)
            value = None
            for flat in range(4 ** d):
                w, pos = None, []
                for k in range(d):
                    j = (flat // 4 ** k) % 4
                    pos.append(base[k] + j - 1)
                    w = weights[k][j] if w is None else w * weights[k][j]
                term = pixel(pos) * w
                value = term if value is None else value + term
        if mode == "tf_crop_and_resize":
            ext = convert(float(extrapolation_value)).astype("float32")
            for c, n in zip(coords, ins):
                value = tirop.if_then_else(tirop.any(c < 0, c > n - 1), ext, value)
        return value.astype(out_dtype)
    return compute(tuple(shape), body, name="resize", tag="injective")


def resize2d(data, roi, size, layout="NCHW", method="linear",
             coordinate_transformation_mode="half_pixel", rounding_method="",
             bicubic_alpha=-0.5, bicubic_exclude=0, extrapolation_value=0.0, out_dtype=None,
             output_shape=None):
    """``data`` resized to ``size`` (out_h, out_w) over the H and W axes of ``layout``.

    ``method``: "nearest_neighbor", "linear" or "cubic". ``coordinate_transformation_mode``
    maps an output index x to an input coordinate: "half_pixel" (x+0.5)*in/out-0.5,
    "align_corners" x*(in-1)/(out-1), "asymmetric" x*in/out, "pytorch_half_pixel",
    "tf_half_pixel_for_nn", "tf_crop_and_resize" (``roi`` = (y1, x1, y2, x2) fractions,
    ``extrapolation_value`` outside). Nearest rounds by ``rounding_method`` (default: "round"
    for align_corners, else "floor"); indices are clamped to the image. Computed in float32,
    result in ``out_dtype`` (default the input's)."""
    del output_shape
    return _resize("resize2d", data, roi, size, layout, method,
                   coordinate_transformation_mode, rounding_method, bicubic_alpha,
                   bicubic_exclude, extrapolation_value, out_dtype, ("H", "W"))


def resize3d(data, roi, size, layout="NCDHW", method="linear",
             coordinate_transformation_mode="half_pixel", rounding_method="",
             bicubic_alpha=-0.5, bicubic_exclude=0, extrapolation_value=0.0, out_dtype=None,
             output_shape=None):
    """``resize2d`` over the D, H and W axes (``size``: (out_d, out_h, out_w), ``roi``:
    (z1, y1, x1, z2, y2, x2)); "trilinear" / "tricubic" read as "linear" / "cubic"."""
    del output_shape
    if isinstance(method, str) and method.lower().startswith("tri"):
        method = method[3:]
    return _resize("resize3d", data, roi, size, layout, method,
                   coordinate_transformation_mode, rounding_method, bicubic_alpha,
                   bicubic_exclude, extrapolation_value, out_dtype, ("D", "H", "W"))


def resize1d(data, roi, size, layout="NCW", method="linear",
             coordinate_transformation_mode="half_pixel", rounding_method="",
             bicubic_alpha=-0.5, bicubic_exclude=0, extrapolation_value=0.0, out_dtype=None,
             output_shape=None):
    """``resize2d`` over the W axis only (``size``: (out_w,), ``roi``: (x1, x2))."""
    del output_shape
    return _resize("resize1d", data, roi, size, layout, method,
                   coordinate_transformation_mode, rounding_method, bicubic_alpha,
                   bicubic_exclude, extrapolation_value, out_dtype, ("W",))


def resize(data, size, layout="NCHW", method="bilinear",
           coordinate_transformation_mode="half_pixel", rounding_method="",
           bicubic_alpha=-0.5, bicubic_exclude=0, out_dtype=None, output_shape=None,
           align_corners=None):
    """The 2-D resize of TVM before 0.8 (``topi.image.resize``, no ``roi``): ``resize2d``
    with ``method`` "bilinear" / "nearest_neighbor" / "bicubic"; TVM 0.6's
    ``align_corners=True`` selects the "align_corners" coordinate mode (False:
    "asymmetric")."""
    if align_corners is not None:
        coordinate_transformation_mode = "align_corners" if align_corners else "asymmetric"
    return resize2d(data, None, size, layout, method, coordinate_transformation_mode,
                    rounding_method, bicubic_alpha, bicubic_exclude, 0.0, out_dtype,
                    output_shape)


__all__ = ["resize", "resize1d", "resize2d", "resize3d"]
