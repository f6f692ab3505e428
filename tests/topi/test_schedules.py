"""topi's per-target schedules: generic dispatch by ``with Target(...)``, the x86 schedules
reading the target's lanes and registers, cuda thread binding, topi.testing's lookups and
topi.utils."""
import numpy as np
import pytest

import tepad
from tepad import te, topi
from tepad.errors import TepadError
from tepad.target import Target

from topi_helpers import rand, run

AVX2 = "llvm -mcpu=haswell"        # 8 fp32 lanes, 16 registers, on any AVX2 host
SSE = "llvm -mcpu=generic"         # 4 fp32 lanes


def test_generic_dispatches_by_the_current_target():
    A = te.placeholder((8, 40), name="A")
    B = topi.exp(A)
    with Target("cuda"):
        s = topi.generic.schedule_injective(B)
    assert any(s[B].iter_var_attrs[iv].bind_thread is not None
               for iv in s[B].leaf_iter_vars if iv in s[B].iter_var_attrs)
    with Target(SSE):
        s = topi.generic.schedule_injective(B)
    text = str(tepad.lower(s, [A, B]))
    assert "T.vectorized(4)" in text or "vectorized(4)" in text
    assert topi.testing.get_injective_schedule("cuda") is topi.cuda.schedule_injective
    assert topi.testing.get_injective_schedule(Target("llvm")) is topi.x86.schedule_injective
    assert topi.testing.get_reduce_schedule("llvm") is topi.x86.schedule_reduce
    assert topi.testing.get_broadcast_schedule("opencl") is topi.cuda.schedule_injective
    assert topi.testing.get_broadcast_schedule("llvm -keys=hexagon") is \
        topi.generic.schedule_injective
    fcompute, fschedule = topi.testing.get_conv2d_nchw_implement("llvm")
    assert fcompute is topi.nn.conv2d_nchw and fschedule is topi.x86.schedule_conv2d_nchw


def _vector_widths(text):
    import re
    return {int(m) for m in re.findall(r"vectorized\((\d+)\)", text)}


@pytest.mark.parametrize("target, lanes", [(AVX2, 8), (SSE, 4)])
def test_x86_conv_and_dense_tiles_follow_the_target(target, lanes):
    if target == AVX2 and not Target("llvm").has_feature("avx2"):
        pytest.skip("host without AVX2")
    X = te.placeholder((1, 8, 10, 16), name="X")
    W = te.placeholder((8, 8, 3, 3), name="W")
    C = topi.nn.conv2d_nchw(X, W, 1, 1, 1)
    with Target(target):
        s = topi.x86.schedule_conv2d_nchw(C)
    text = str(tepad.lower(s, [X, W, C]))
    assert _vector_widths(text) == {lanes}
    assert "T.parallel" in text and "conv2d_nchw_local" in text    # accumulator tile
    x, w = rand((1, 8, 10, 16)), rand((8, 8, 3, 3))
    got = run(C, [X, W], [x, w], topi.x86.schedule_conv2d_nchw, target)
    np.testing.assert_allclose(got, topi.testing.conv2d_nchw_python(x, w, 1, 1), rtol=1e-5,
                               atol=1e-5)
    D = te.placeholder((6, 32), name="D")
    E = te.placeholder((24, 32), name="E")
    with Target(target):
        s = topi.x86.schedule_dense(topi.nn.dense(D, E))
    text = str(tepad.lower(s, [D, E, s.outputs[0].output(0)]))
    assert _vector_widths(text) == {lanes}
    # the weight packed once so a tile loads E[j:j+lanes, k] as one vector
    assert f"E_global = T.allocate([768]" in text and f"{32 * lanes}" in text
    d, e = rand((6, 32)), rand((24, 32))
    got = run(topi.nn.dense(D, E), [D, E], [d, e], topi.x86.schedule_dense, target)
    np.testing.assert_allclose(got, d @ e.T, rtol=1e-5, atol=1e-5)
    x, y = rand((2, 3, 8)), rand((2, 16, 8))
    X, Y = te.placeholder(x.shape, name="X"), te.placeholder(y.shape, name="Y")
    got = run(topi.nn.batch_matmul(X, Y), [X, Y], [x, y], topi.x86.schedule_batch_matmul,
              target)
    np.testing.assert_allclose(got, x @ y.transpose(0, 2, 1), rtol=1e-5, atol=1e-5)


def test_cuda_schedules_bind_threads_and_respect_max_num_threads():
    A = te.placeholder((4, 300), name="A")
    B = topi.sum(A, axis=1)
    with Target("cuda -max_num_threads=128"):
        s = topi.cuda.schedule_injective(topi.exp(A))
        r = topi.cuda.schedule_reduce(B)
    E = s.outputs[0].output(0)
    assert "launch_thread('threadIdx.x', 128)" in str(tepad.lower(s, [A, E]))
    text = str(tepad.lower(r, [A, B]))
    assert "threadIdx.x" in text and "blockIdx.x" in text
    a = rand((4, 300))
    np.testing.assert_allclose(run(B, [A], [a], topi.cuda.schedule_reduce, "cuda"),
                               a.sum(axis=1), rtol=1e-5)


def test_utils():
    n = te.var("n")
    A = te.placeholder((n, 4, 2 * 3), name="A")
    shape = topi.utils.get_const_tuple(A.shape)
    assert shape[1:] == (4, 6) and not isinstance(shape[0], int)
    assert topi.utils.get_const_int(te.const(3) * 4) == 12
    with pytest.raises(TepadError, match="not a constant integer"):
        topi.util.get_const_int(n)
    assert topi.util.get_const_tuple is topi.utils.get_const_tuple
    assert topi.utils.equal_const_int(A.shape[1], 4)
    X = te.placeholder((1, 3, 8, 8), name="X")
    W = te.placeholder((4, 3, 3, 3), name="W")
    out = topi.nn.relu(topi.add(topi.nn.conv2d_nchw(X, W, 1, 1, 1), 1.0))
    s = te.create_schedule(out.op)
    seen = []
    topi.utils.traverse_inline(s, out.op, lambda op: seen.append(op.tag))
    assert "conv2d_nchw" in seen and "elemwise" in seen
    conv = out.op.input_tensors[0].op.input_tensors[0]
    assert s[out.op.input_tensors[0]].attach_type.name == "Inline"     # the add
    assert s[conv.op.input_tensors[0]].attach_type.name == "Inline"    # pad_temp
    assert topi.nn.get_pad_tuple("SAME", (3, 4)) == (1, 2, 1, 1)
    assert topi.nn.get_pad_tuple((1, 2), (3, 3)) == (1, 2, 1, 2)


def test_default_schedule_and_bad_outputs():
    A = te.placeholder((5,), name="A")
    B = topi.exp(topi.negative(A))
    s = topi.generic.default_schedule(B, auto_inline=True)
    assert s[B.op.input_tensors[0]].attach_type.name == "Inline"
    with pytest.raises(TepadError, match="takes a te.Tensor or a list"):
        topi.x86.schedule_injective([np.zeros(3)])
    a = rand((5,))
    np.testing.assert_allclose(run(B, [A], [a], topi.generic.schedule_injective),
                               np.exp(-a), rtol=1e-6)


@pytest.mark.parametrize("kind, target", [("x86", "llvm"), ("cuda", "cuda")])
def test_symbolic_extents(kind, target):
    n = te.var("n")
    A = te.placeholder((n, 20), name="A")
    outs = [topi.sigmoid(A), topi.sum(A, axis=1)]
    a = rand((5, 20))
    got = run(outs, [A], [a], getattr(topi, kind).schedule_reduce, target,
              out_shapes=[(5, 20), (5,)])
    np.testing.assert_allclose(got[0], 1 / (1 + np.exp(-a)), rtol=1e-5)
    np.testing.assert_allclose(got[1], a.sum(axis=1), rtol=1e-5)


@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_tvm_topi_test_idiom(target, monkeypatch):
    """The shape of TVM's tests/python/topi tests, with only the import changed."""
    import tepad as tvm
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    A = te.placeholder((5, 7), name="A")
    B = topi.sigmoid(A)
    dev = tvm.device(target, 0)
    with tvm.target.Target(target):
        s = tvm.topi.testing.get_injective_schedule(target)(B)
    foo = tvm.build(s, [A, B], target, name="sigmoid")
    a_np = rand((5, 7))
    a = tvm.nd.array(a_np, dev)
    b = tvm.nd.array(np.zeros((5, 7), "float32"), dev)
    foo(a, b)
    tvm.testing.assert_allclose(b.numpy(), 1 / (1 + np.exp(-a_np)), rtol=1e-5)


def test_x86_conv_tile_narrows_rather_than_guard():
    """Width 20 under AVX2 (8 lanes): tiles of 4 lanes divide it, so no accumulation of the
    tile tests its position."""
    if not Target("llvm").has_feature("avx2"):
        pytest.skip("host without AVX2")
    X = te.placeholder((1, 4, 6, 20), name="X")
    W = te.placeholder((8, 4, 3, 3), name="W")
    C = topi.nn.conv2d_nchw(X, W, 1, 1, 1)
    with Target(AVX2):
        s = topi.x86.schedule_conv2d_nchw(C)
    text = str(tepad.lower(s, [X, W, C]))
    conv_part = text[text.index("conv2d_nchw_local = T.allocate"):]
    assert "vectorized(4)" in conv_part and "T.likely" not in conv_part
    x, w = rand((1, 4, 6, 20)), rand((8, 4, 3, 3))
    got = run(C, [X, W], [x, w], topi.x86.schedule_conv2d_nchw, AVX2)
    np.testing.assert_allclose(got, topi.testing.conv2d_nchw_python(x, w, 1, 1), rtol=1e-5,
                               atol=1e-5)
