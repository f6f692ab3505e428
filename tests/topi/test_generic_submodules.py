"""``topi.generic.nn`` / ``.injective`` / ``.extern``: TVM's files of generic schedules, as
TVM 0.6's intro_topi tutorial reaches them (``topi.generic.nn.schedule_conv2d_nchw`` under a
CUDA target); they are the very dispatching functions of ``topi.generic``."""
import numpy as np

import tepad as tvm
from tepad import te, tir, topi
from tepad.tir.stmt_functor import post_order_visit


def _conv_ref(x, w, pad):
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, _, h, wd = xp.shape
    co, ci, kh, kw = w.shape
    out = np.zeros((n, co, h - kh + 1, wd - kw + 1), "float32")
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,oc->nohw", xp[:, :, i:i + out.shape[2], j:j + out.shape[3]],
                             w[:, :, i, j])
    return out


def test_submodules_hold_the_generic_functions():
    from tepad.topi.generic.nn import schedule_conv2d_nchw, schedule_dense
    from tepad.topi.generic.injective import schedule_injective
    assert topi.generic.nn.schedule_conv2d_nchw is schedule_conv2d_nchw is \
        topi.generic.schedule_conv2d_nchw
    assert schedule_dense is topi.generic.schedule_dense
    assert schedule_injective is topi.generic.schedule_injective
    assert topi.generic.extern.schedule_extern is topi.generic.schedule_extern


def test_generic_nn_conv2d_on_cpu_matches_numpy():
    data = te.placeholder((1, 3, 12, 12), name="data")
    kernel = te.placeholder((4, 3, 3, 3), name="kernel")
    with tvm.target.Target("llvm"):
        out = topi.nn.relu(topi.nn.conv2d(data, kernel, strides=1, padding=1, dilation=1))
        s = topi.generic.nn.schedule_conv2d_nchw([out])
    f = tvm.build(s, [data, kernel, out], "llvm")
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (1, 3, 12, 12)).astype("float32")
    w = rng.uniform(-1, 1, (4, 3, 3, 3)).astype("float32")
    y = tvm.nd.empty((1, 4, 12, 12), "float32")
    f(tvm.nd.array(x), tvm.nd.array(w), y)
    np.testing.assert_allclose(y.numpy(), np.maximum(_conv_ref(x, w, 1), 0), rtol=1e-4,
                               atol=1e-5)


def test_generic_nn_under_cuda_binds_threads():
    data = te.placeholder((1, 3, 16, 16), name="data")
    kernel = te.placeholder((4, 3, 5, 5), name="kernel")
    with tvm.target.Target("cuda"):
        out = topi.nn.relu(topi.nn.conv2d(data, kernel, strides=1, padding=2, dilation=1))
        s = topi.generic.nn.schedule_conv2d_nchw([out])
    tags = set()
    post_order_visit(tvm.lower(s, [data, kernel])["main"].body,
                     lambda n: tags.add(n.node.thread_tag) if isinstance(n, tir.AttrStmt)
                     and n.attr_key == "thread_extent" else None)
    assert "blockIdx.x" in tags and any(t.startswith("threadIdx") for t in tags)
