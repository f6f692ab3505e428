"""topi.image.affine_grid against a pixel-by-pixel numpy loop, with the plain, x86 and
emulated cuda injective schedules."""
import itertools

import numpy as np
import pytest

import tepad
from tepad import topi
from topi_helpers import placeholder, rand, run


def _loop(theta, h, w):
    n = theta.shape[0]
    out = np.zeros((n, 2, h, w))
    for b, i, j in itertools.product(range(n), range(h), range(w)):
        x = -1.0 + j * (2.0 - 1e-7) / (w - 1)
        y = -1.0 + i * (2.0 - 1e-7) / (h - 1)
        out[b, :, i, j] = theta[b] @ np.array([x, y, 1.0])
    return out


@pytest.mark.parametrize("sched,target", [(None, "llvm"), ("x86", "llvm"), ("cuda", "cuda")])
@pytest.mark.parametrize("n,h,w", [(1, 2, 3), (3, 5, 17)])
def test_affine_grid(n, h, w, sched, target):
    theta = rand((n, 2, 3))
    T = placeholder(theta, "theta")
    G = topi.image.affine_grid(T, (h, w))
    s = None if sched is None else getattr(topi, sched).schedule_injective
    got = run(G, [T], [theta], s, target)
    ref = _loop(theta.astype("float64"), h, w)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(topi.testing.affine_grid_python(theta, (h, w)), ref, rtol=1e-5,
                               atol=1e-6)


def test_affine_grid_errors():
    T = tepad.te.placeholder((1, 2, 3), name="T")
    with pytest.raises(tepad.TepadError, match="both > 1"):
        topi.image.affine_grid(T, (1, 4))
    with pytest.raises(tepad.TepadError, match="3-d"):
        topi.image.affine_grid(tepad.te.placeholder((2, 3), name="U"), (4, 4))


def _resize3d_loop(x, out_size, method, mode):
    """NCDHW: each output voxel from its source coordinate (asymmetric or half_pixel);
    nearest floors, linear blends the 8 clamped corners."""
    n, c, *ins = x.shape
    out = np.zeros((n, c, *out_size))
    for o in itertools.product(*[range(e) for e in out_size]):
        if mode == "asymmetric":
            src = [o[k] * ins[k] / out_size[k] for k in range(3)]
        else:
            src = [(o[k] + 0.5) * ins[k] / out_size[k] - 0.5 for k in range(3)]
        if method == "nearest_neighbor":
            idx = [min(max(int(np.floor(s + 1e-5)), 0), ins[k] - 1) for k, s in enumerate(src)]
            out[(slice(None), slice(None), *o)] = x[(slice(None), slice(None), *idx)]
            continue
        acc = 0.0
        for corner in itertools.product((0, 1), repeat=3):
            w, idx = 1.0, []
            for k, bit in enumerate(corner):
                b = int(np.floor(src[k]))
                t = src[k] - b
                w *= t if bit else 1 - t
                idx.append(min(max(b + bit, 0), ins[k] - 1))
            acc = acc + w * x[(slice(None), slice(None), *idx)]
        out[(slice(None), slice(None), *o)] = acc
    return out


@pytest.mark.parametrize("target", ["llvm", "cuda"])
@pytest.mark.parametrize("layout", ["NCDHW", "NDHWC"])
@pytest.mark.parametrize("method,mode", [("nearest_neighbor", "asymmetric"),
                                         ("trilinear", "asymmetric"),
                                         ("trilinear", "half_pixel")])
def test_upsampling3d_and_resize3d(method, mode, layout, target):
    x = rand((1, 2, 3, 4, 5))
    scales = (2.0, 1.5, 0.8)
    size = tuple(int(round(n * s)) for n, s in zip(x.shape[2:], scales))
    ref = _resize3d_loop(x.astype("float64"), size, method.replace("tri", ""), mode)
    xa = x.transpose(0, 2, 3, 4, 1).copy() if layout == "NDHWC" else x
    if layout == "NDHWC":
        ref = ref.transpose(0, 2, 3, 4, 1)
    A = placeholder(xa, "A")
    B = topi.nn.upsampling3d(A, *scales, layout=layout, method=method,
                             coordinate_transformation_mode=mode)
    sched = (topi.x86 if target == "llvm" else topi.cuda).schedule_injective
    np.testing.assert_allclose(run(B, [A], [xa], sched, target), ref, rtol=1e-5, atol=1e-6)
    C = topi.image.resize3d(A, None, size, layout, method, mode)
    np.testing.assert_allclose(run(C, [A], [xa], sched, target), ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(topi.testing.resize3d_python(xa, scales, layout, method, mode),
                               ref, rtol=1e-5, atol=1e-6)


def test_layout_predicates():
    assert topi.utils.nchw_pack_layout("NCHW4n4c") and not topi.utils.nchw_pack_layout("NCHW")
    assert topi.utils.nchw_xc_layout("NCHW16c") and not topi.utils.nchw_xc_layout("NCHW4n4c")
    with pytest.raises(tepad.TepadError, match="NCDHW"):
        topi.nn.upsampling3d(tepad.te.placeholder((1, 2, 3, 4), name="A"), 2, 2, 2, "NCHW")


@pytest.mark.parametrize("method", ["nearest_neighbor", "bilinear"])
def test_upsampling_packed_layout_is_per_block_nchw(method):
    """A packed NCHW2n4c tensor upsamples as each (n, c) block on its own: compare with the
    NCHW result of every block, built separately."""
    x = rand((1, 2, 3, 4, 2, 4))
    A = placeholder(x, "A")
    B = topi.nn.upsampling(A, 2.0, 1.5, layout="NCHW2n4c", method=method)
    got = run(B, [A], [x], topi.x86.schedule_injective)
    for bn, bc in itertools.product(range(2), range(4)):
        blk = np.ascontiguousarray(x[..., bn, bc])
        P = placeholder(blk, "P")
        Q = topi.nn.upsampling(P, 2.0, 1.5, layout="NCHW", method=method)
        np.testing.assert_allclose(got[..., bn, bc], run(Q, [P], [blk]), rtol=1e-6)
    np.testing.assert_allclose(
        topi.testing.resize2d_python(x, (2.0, 1.5), "NCHW2n4c", method.replace("bi", ""),
                                     "asymmetric"), got, rtol=1e-5, atol=1e-6)


def _crop_loop(img, boxes, inds, size, method, extrap):
    """NCHW, pixel by pixel: the box's sample point, then nearest (half up) or the four
    floor/ceil neighbours blended."""
    _, c, h, w = img.shape
    th, tw = size
    out = np.zeros((len(inds), c, th, tw))
    for b, y, x in itertools.product(range(len(inds)), range(th), range(tw)):
        y1, x1, y2, x2 = (float(v) for v in boxes[b])
        iy = y1 * (h - 1) + y * (y2 - y1) * (h - 1) / (th - 1) if th > 1 else 0.5 * (y1 + y2) * (h - 1)
        ix = x1 * (w - 1) + x * (x2 - x1) * (w - 1) / (tw - 1) if tw > 1 else 0.5 * (x1 + x2) * (w - 1)
        if not (0 <= iy <= h - 1 and 0 <= ix <= w - 1):
            out[b, :, y, x] = extrap
            continue
        im = img[inds[b]].astype("float64")
        if method == "nearest_neighbor":
            out[b, :, y, x] = im[:, int(np.floor(iy + 0.5)), int(np.floor(ix + 0.5))]
            continue
        ya, yb, xa, xb = int(np.floor(iy)), int(np.ceil(iy)), int(np.floor(ix)), int(np.ceil(ix))
        fy, fx = iy - ya, ix - xa
        out[b, :, y, x] = ((im[:, ya, xa] * (1 - fx) + im[:, ya, xb] * fx) * (1 - fy) +
                           (im[:, yb, xa] * (1 - fx) + im[:, yb, xb] * fx) * fy)
    return out


@pytest.mark.parametrize("target", ["llvm", "cuda"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("method,size", [("bilinear", (5, 7)), ("nearest_neighbor", (4, 3)),
                                         ("bilinear", (1, 6))])
def test_crop_and_resize(method, size, layout, target):
    img = rand((3, 2, 9, 8))
    boxes = np.array([[0.1, 0.2, 0.7, 0.9], [-0.2, 0.0, 0.5, 1.3]], "float32")
    inds = np.array([2, 0], "int32")
    ref = _crop_loop(img, boxes, inds, size, method, 0.25)
    ia = img.transpose(0, 2, 3, 1).copy() if layout == "NHWC" else img
    if layout == "NHWC":
        ref = ref.transpose(0, 2, 3, 1)
    I, B, K = placeholder(ia, "images"), placeholder(boxes, "boxes"), placeholder(inds, "ind")
    out = topi.image.crop_and_resize(I, B, K, size, layout, method, 0.25)
    sched = (topi.x86 if target == "llvm" else topi.cuda).schedule_injective
    got = run(out, [I, B, K], [ia, boxes, inds], sched, target)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        topi.testing.crop_and_resize_python(ia, boxes, inds, size, layout, method, 0.25), ref,
        rtol=1e-5, atol=1e-5)


def _gs_point(img, gx, gy, method, pad, align):
    """One 2-D sample, written out pixel by pixel (nearest / bilinear)."""
    _, h, w = img.shape

    def unnorm(g, s):
        return (g + 1) * (s - 1) / 2 if align else (g + 1) * s / 2 - 0.5

    def fix(v, s):
        if pad == "border":
            return min(max(v, 0.0), s - 1.0)
        if pad == "reflection":
            lo, hi = (0.0, s - 1.0) if align else (-0.5, s - 0.5)
            while v < lo or v > hi:           # mirror until inside
                v = 2 * lo - v if v < lo else 2 * hi - v
            return min(max(v, 0.0), s - 1.0)
        return v
    y, x = fix(unnorm(gy, h), h), fix(unnorm(gx, w), w)

    def px(yy, xx):
        return img[:, yy, xx] if 0 <= yy < h and 0 <= xx < w else np.zeros(img.shape[0])
    if method == "nearest":
        return px(int(np.rint(y)), int(np.rint(x)))
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    fy, fx = y - y0, x - x0
    return (px(y0, x0) * (1 - fy) * (1 - fx) + px(y0, x0 + 1) * (1 - fy) * fx +
            px(y0 + 1, x0) * fy * (1 - fx) + px(y0 + 1, x0 + 1) * fy * fx)


@pytest.mark.parametrize("target", ["llvm", "cuda"])
@pytest.mark.parametrize("method", ["nearest", "bilinear"])
@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [True, False])
def test_grid_sample_2d(method, pad, align, target):
    data = rand((1, 2, 4, 5))
    grid = rand((1, 2, 3, 4), lo=-1.6, hi=1.6)
    ref = np.zeros((1, 2, 3, 4))
    for i, j in itertools.product(range(3), range(4)):
        ref[0, :, i, j] = _gs_point(data[0].astype("float64"), grid[0, 0, i, j],
                                    grid[0, 1, i, j], method, pad, align)
    D, G = placeholder(data, "data"), placeholder(grid, "grid")
    out = topi.image.grid_sample(D, G, method, "NCHW", pad, align)
    sched = (topi.x86 if target == "llvm" else topi.cuda).schedule_injective
    got = run(out, [D, G], [data, grid], sched, target)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(
        topi.testing.grid_sample_python(data, grid, method, "NCHW", pad, align), ref,
        rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
def test_grid_sample_bicubic_and_3d_match_reference(pad):
    data, grid = rand((1, 1, 4, 4)), rand((1, 2, 3, 3), lo=-1.4, hi=1.4)
    D, G = placeholder(data, "data"), placeholder(grid, "grid")
    got = run(topi.image.grid_sample(D, G, "bicubic", "NCHW", pad, False), [D, G], [data, grid])
    np.testing.assert_allclose(
        got, topi.testing.grid_sample_python(data, grid, "bicubic", "NCHW", pad, False),
        rtol=1e-4, atol=1e-5)
    data3, grid3 = rand((1, 1, 3, 3, 4)), rand((1, 3, 2, 2, 2), lo=-1.3, hi=1.3)
    D3, G3 = placeholder(data3, "data"), placeholder(grid3, "grid")
    got3 = run(topi.image.grid_sample(D3, G3, "bilinear", "NCDHW", pad, True), [D3, G3],
               [data3, grid3])
    np.testing.assert_allclose(
        got3, topi.testing.grid_sample_python(data3, grid3, "bilinear", "NCDHW", pad, True),
        rtol=1e-4, atol=1e-5)
    with pytest.raises(tepad.TepadError, match="bicubic"):
        topi.image.grid_sample(D3, G3, "bicubic", "NCDHW", pad, True)
