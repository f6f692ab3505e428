"""``topi.cuda.conv2d_winograd.winograd_cuda`` (TVM's internal compute behind the cuda
winograd strategy, which programs such as FlexTensor call directly with an autotvm config):
raw and pre-transformed kernels, both tile sizes, against numpy's direct convolution."""
import numpy as np
import pytest

import tepad
from tepad import autotvm, te, topi


def _direct(x, w, pad):
    xp = np.pad(x.astype("float64"), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    k = w.shape[2]
    oh, ow = xp.shape[2] - k + 1, xp.shape[3] - k + 1
    out = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(k):
        for j in range(k):
            out += np.einsum("nchw,oc->nohw", xp[:, :, i:i + oh, j:j + ow], w[:, :, i, j])
    return out


def _run(out, tensors, arrays):
    s = te.create_schedule(out.op)
    f = tepad.build(s, list(tensors) + [out], "llvm")
    res = tepad.nd.array(np.zeros([int(d) for d in out.shape], out.dtype))
    f(*[tepad.nd.array(a) for a in arrays], res)
    return res.numpy()


@pytest.mark.parametrize("h", [8, 6])     # F(4x4) when H % 8 == 0, else F(2x2)
def test_winograd_cuda_raw_kernel(h):
    from tepad.topi.cuda.conv2d_winograd import winograd_cuda
    rng = np.random.default_rng(h)
    x = rng.uniform(-1, 1, (2, 3, h, h)).astype("float32")
    w = rng.uniform(-1, 1, (4, 3, 3, 3)).astype("float32")
    X, W = te.placeholder(x.shape, name="X"), te.placeholder(w.shape, name="W")
    cfg = autotvm.get_config()
    before = cfg.flop
    out = winograd_cuda(cfg, X, W, 1, 1, 1, "float32", False)
    np.testing.assert_allclose(_run(out, [X, W], [x, w]), _direct(x, w, 1),
                               rtol=1e-4, atol=1e-4)
    assert cfg.flop - before == 2 * 2 * 4 * h * h * 3 * 9


def test_winograd_cuda_pre_computed_kernel():
    from tepad.topi.cuda import winograd_cuda
    from tepad.topi.nn.winograd_util import winograd_matrices_np
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (1, 2, 6, 6)).astype("float32")
    w = rng.uniform(-1, 1, (3, 2, 3, 3)).astype("float32")
    _, _, G = winograd_matrices_np(2, 3)          # tile 2: H = 6 is not a multiple of 8
    packed = np.einsum("er,ocrs,ns->enco", G, w.astype("float64"), G).astype("float32")
    X, P = te.placeholder(x.shape, name="X"), te.placeholder(packed.shape, name="P")
    out = winograd_cuda(None, X, P, 1, 1, 1, "float32", True)
    np.testing.assert_allclose(_run(out, [X, P], [x, packed]), _direct(x, w, 1),
                               rtol=1e-4, atol=1e-4)


def test_winograd_cuda_rejects_stride():
    from tepad.topi.cuda import winograd_cuda
    X, W = te.placeholder((1, 2, 8, 8), name="X"), te.placeholder((2, 2, 3, 3), name="W")
    with pytest.raises(tepad.TepadError):
        winograd_cuda(None, X, W, 2, 1, 1, "float32", False)
