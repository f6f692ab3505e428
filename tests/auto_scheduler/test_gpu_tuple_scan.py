"""GPU sketch rules for tuple reductions (an argmax's ``comm_reducer`` over (index, value)
pairs, with two outputs) and ``te.scan`` (its init and update computes bound to threads);
the default and random annotations run through the GPU emulator against numpy, and the CPU
sketch leaves a scan's computes to the scan."""
import random

import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.auto_scheduler.compute_dag import ComputeDAG
from tepad.auto_scheduler.gpu_sketch import GpuSketch
from tepad.auto_scheduler.loop_state import apply_steps
from tepad.auto_scheduler.sketch import Sketch


def argmax_rows(m, n):
    def fcombine(x, y):
        take = x[1] >= y[1]
        return tir.Select(take, x[0], y[0]), tir.Select(take, x[1], y[1])

    def fidentity(t0, t1):
        return tir.const(-1, t0), tir.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="float32")
    k = te.reduce_axis((0, n), "k")
    t_idx, t_val = te.compute((m,), lambda i: argmax((idx[i, k], val[i, k]), axis=k),
                              name="T")
    return [idx, val, t_idx, t_val]


def cumsum_scan(m, n, c=1):
    X = te.placeholder((m, n, c), name="X")
    state = te.placeholder((m, n, c), name="state")
    init = te.compute((1, n, c), lambda _, i, j: X[0, i, j], name="init")
    update = te.compute((m, n, c), lambda t, i, j: state[t - 1, i, j] + X[t, i, j],
                        name="update")
    return [X, te.scan(init, update, state, inputs=[X], name="scan")]


def _argmax_run(tensors, steps, m, n):
    dag = ComputeDAG(tensors)
    s, args, _ = apply_steps(dag, steps)
    f = tepad.build(s, args, target="cuda", emulate=True)
    rng = np.random.default_rng(0)
    iv = np.tile(np.arange(n, dtype="int32"), (m, 1))
    vv = rng.permutation(m * n).reshape(m, n).astype("float32")     # no ties
    o0, o1 = tepad.nd.empty((m,), "int32"), tepad.nd.empty((m,), "float32")
    f(tepad.nd.array(iv), tepad.nd.array(vv), o0, o1)
    np.testing.assert_array_equal(o0.numpy(), vv.argmax(axis=1))
    np.testing.assert_array_equal(o1.numpy(), vv.max(axis=1))


@pytest.mark.parametrize("m, n, kind", [(4, 128, "xthread"), (64, 8, "simple")])
def test_argmax_default_and_random_annotations(m, n, kind):
    tensors = argmax_rows(m, n)
    sk = GpuSketch(ComputeDAG(tensors), "cuda")
    assert sk.plan == [(kind, "T", None)] and not sk.unsupported
    rng = random.Random(1)
    draws = [sk.default_params()] + [sk.random_params(rng) for _ in range(3)]
    for p in draws:
        steps = sk.steps(p)
        assert ["AN", "T", steps[-1][2], "threadIdx.x"] == steps[-1]
        _argmax_run(tensors, steps, m, n)


@pytest.mark.parametrize("c", [1, 3])
def test_scan_binds_its_init_and_update(c):
    m, n = 5, 48
    tensors = cumsum_scan(m, n, c)
    dag = ComputeDAG(tensors)
    sk = GpuSketch(dag, "cuda")
    assert sorted(sk.plan) == [("scan", "init", None), ("scan", "update", None)]
    assert not sk.unsupported
    x = np.random.default_rng(0).uniform(size=(m, n, c)).astype("float32")
    rng = random.Random(2)
    for p in [sk.default_params()] + [sk.random_params(rng) for _ in range(3)]:
        steps = sk.steps(p)
        assert not any(st[0] == "CI" for st in steps)       # never inlined
        s, args, _ = apply_steps(dag, steps)
        text = str(tepad.lower(s, args, simple_mode=True))
        assert "threadIdx.x" in text and "blockIdx.x" in text
        f = tepad.build(s, args, target="cuda", emulate=True)
        out = tepad.nd.empty((m, n, c), "float32")
        f(tepad.nd.array(x), out)
        np.testing.assert_allclose(out.numpy(), np.cumsum(x, axis=0), rtol=1e-5)


def test_scan_without_spatial_axes_is_unsupported_not_inlined():
    X = te.placeholder((6,), name="X")
    state = te.placeholder((6,), name="state")
    init = te.compute((1,), lambda _: X[0], name="init")
    update = te.compute((6,), lambda t: state[t - 1] + X[t], name="update")
    sk = GpuSketch(ComputeDAG([X, te.scan(init, update, state, inputs=[X])]), "cuda")
    assert sorted(sk.unsupported) == ["init", "update"] and sk.plan == []


@pytest.mark.parametrize("exact", [False, True])
def test_cpu_sketch_leaves_a_scan_to_the_scan(exact):
    m, n = 5, 40
    tensors = cumsum_scan(m, n)
    dag = ComputeDAG(tensors)
    sk = Sketch(dag, "llvm")
    assert sk.plan == [] and sk.loc_choices == {}
    s, args, _ = apply_steps(dag, sk.steps(sk.default_params()))
    x = np.random.default_rng(0).uniform(size=(m, n, 1)).astype("float32")
    out = np.zeros((m, n, 1), "float32")
    tepad.build(s, args, "llvm", exact_bounds=exact)(x, out)
    np.testing.assert_allclose(out, np.cumsum(x, axis=0), rtol=1e-5)


@pytest.mark.parametrize("exact", [False, True])
def test_cpu_sketch_runs_a_tuple_reduction_in_parallel(exact):
    m, n = 12, 50
    tensors = argmax_rows(m, n)
    dag = ComputeDAG(tensors)
    sk = Sketch(dag, "llvm")
    assert sk.plan == [("tuple", "T", None)]
    s, args, _ = apply_steps(dag, sk.steps(sk.default_params()))
    assert "T.parallel" in str(tepad.lower(s, args, simple_mode=True, exact_bounds=exact))
    iv = np.tile(np.arange(n, dtype="int32"), (m, 1))
    vv = np.random.default_rng(0).permutation(m * n).reshape(m, n).astype("float32")
    o0, o1 = np.zeros(m, "int32"), np.zeros(m, "float32")
    tepad.build(s, args, "llvm", exact_bounds=exact)(iv, vv, o0, o1)
    np.testing.assert_array_equal(o0, vv.argmax(axis=1))
    np.testing.assert_array_equal(o1, vv.max(axis=1))
