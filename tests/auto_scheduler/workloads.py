"""Workloads the auto_scheduler tests register (an importable module, so build workers that
spawn instead of fork find them too)."""
from tepad import auto_scheduler, te, topi


@auto_scheduler.register_workload
def matmul_add(N, L, M, dtype):
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)
    C = te.placeholder((N, M), name="C", dtype=dtype)
    k = te.reduce_axis((0, L), name="k")
    matmul = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul",
                        attrs={"layout_free_placeholders": [B]})
    out = te.compute((N, M), lambda i, j: matmul[i, j] + C[i, j], name="out")
    return [A, B, C, out]


def conv2d_nchw(n, c, h, w, f, kh, kw, pad):
    data = te.placeholder((n, c, h, w), name="data")
    weight = te.placeholder((f, c, kh, kw), name="weight")
    padded = te.compute(
        (n, c, h + 2 * pad, w + 2 * pad),
        lambda b, ci, y, x: te.if_then_else(
            te.all(y >= pad, y < h + pad, x >= pad, x < w + pad),
            data[b, ci, y - pad, x - pad], 0.0), name="pad")
    rc = te.reduce_axis((0, c), name="rc")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")
    oh, ow = h + 2 * pad - kh + 1, w + 2 * pad - kw + 1
    conv = te.compute((n, f, oh, ow), lambda b, ff, y, x: te.sum(
        padded[b, rc, y + ry, x + rx] * weight[ff, rc, ry, rx], axis=[rc, ry, rx]), name="conv")
    return [data, weight, conv]


def softmax(n, m):
    x = te.placeholder((n, m), name="x")
    k1 = te.reduce_axis((0, m), name="k1")
    mx = te.compute((n,), lambda i: te.max(x[i, k1], axis=k1), name="mx")
    e = te.compute((n, m), lambda i, j: te.exp(x[i, j] - mx[i]), name="e")
    k2 = te.reduce_axis((0, m), name="k2")
    total = te.compute((n,), lambda i: te.sum(e[i, k2], axis=k2), name="total")
    out = te.compute((n, m), lambda i, j: e[i, j] / total[i], name="out")
    return [x, out]


def elementwise_chain(n, m):
    a = te.placeholder((n, m), name="a")
    b = te.placeholder((n, m), name="b")
    t1 = te.compute((n, m), lambda i, j: a[i, j] * 2.0 + b[i, j], name="t1")
    t2 = te.compute((n, m), lambda i, j: te.max(t1[i, j], 0.5), name="t2")
    out = te.compute((n, m), lambda i, j: t2[i, j] * b[i, j], name="out")
    return [a, b, out]


@auto_scheduler.register_workload
def conv2d_bias_relu(N, H, W, CO, CI, KH, KW, stride, padding):
    """The layer of TVM's tune_conv2d_layer_cuda tutorial: topi's conv2d, a bias, a relu."""
    data = te.placeholder((N, CI, H, W), name="data")
    kernel = te.placeholder((CO, CI, KH, KW), name="kernel")
    bias = te.placeholder((1, CO, 1, 1), name="bias")
    conv = topi.nn.conv2d_nchw(data, kernel, stride, padding, dilation=1, out_dtype="float32")
    out = topi.nn.relu(conv + bias)
    return [data, kernel, bias, out]
