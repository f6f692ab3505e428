"""te.create_prim_func: TE definitions -> a PrimFunc of blocks (iter vars, regions, init),
printed TVMScript-like, checked by the verifier, lowered by LowerInitBlock /
ConvertBlocksToOpaque / LowerOpaqueBlock and built; numerics against numpy."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.lower.passes import (convert_blocks_to_opaque, lower_init_block,
                                lower_opaque_block)

from lower_helpers import nodes

RNG = np.random.default_rng(7)


def _blocks(f):
    return [b for b in nodes(f, tir.Block) if b.name_hint != "root"]


def _chain():
    A = te.placeholder((16, 8), name="A")
    B = te.compute((16, 8), lambda i, j: A[i, j] * 2.0, name="B")
    k = te.reduce_axis((0, 8), name="k")
    C = te.compute((16,), lambda i: te.sum(B[i, k], axis=k), name="C")
    D = te.compute((16,), lambda i: C[i] + A[i, 0], name="D")
    return A, B, C, D


def test_elementwise_block_facts_and_build():
    A = te.placeholder((32, 4), name="A")
    B = te.compute((32, 4), lambda i, j: A[i, j] + 1.0, name="B")
    f = te.create_prim_func([A, B])
    assert not tir.verify(f)
    (blk,) = _blocks(f)
    assert blk.name_hint == "B" and [iv.var.name for iv in blk.iter_vars] == ["v_i", "v_j"]
    assert all(iv.iter_type == tir.IterVar.DataPar for iv in blk.iter_vars)
    assert [r.buffer.name for r in blk.reads] == ["A"]
    assert [r.buffer.name for r in blk.writes] == ["B"]
    assert blk.init is None
    text = f.script()
    assert 'with T.block("B"):' in text and "v_i = T.axis.spatial(32, i)" in text
    assert "T.reads(A[v_i, v_j])" in text and "T.writes(B[v_i, v_j])" in text
    a = RNG.random((32, 4)).astype("float32")
    b = np.zeros_like(a)
    tepad.build(f)(a, b)
    np.testing.assert_allclose(b, a + 1.0)


def test_reduction_has_init_and_reduce_axis():
    A = te.placeholder((8, 64), name="A")
    k = te.reduce_axis((0, 64), name="k")
    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
    f = te.create_prim_func([A, B])
    (blk,) = _blocks(f)
    kinds = [iv.iter_type for iv in blk.iter_vars]
    assert kinds == [tir.IterVar.DataPar, tir.IterVar.CommReduce]
    assert isinstance(blk.init, tir.BufferStore) and float(blk.init.value.value) == 0.0
    assert [r.buffer.name for r in blk.reads] == ["A"]       # the output is not a read
    assert "with T.init():" in f.script() and "T.axis.reduce(64, k)" in f.script()
    a = RNG.random((8, 64)).astype("float32")
    b = np.zeros(8, "float32")
    tepad.build(f)(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)


def test_multi_stage_allocates_intermediates():
    A, B, C, D = _chain()
    f = te.create_prim_func([A, D])
    root = [b for b in nodes(f, tir.Block) if b.name_hint == "root"][0]
    assert [b.name for b in root.alloc_buffers] == ["B", "C"]
    assert [b.name_hint for b in _blocks(f)] == ["B", "C", "D"]
    assert 'T.alloc_buffer((16, 8), \'float32\')' in f.script()
    a = RNG.random((16, 8)).astype("float32")
    d = np.zeros(16, "float32")
    tepad.build(f)(a, d)
    np.testing.assert_allclose(d, (a * 2.0).sum(axis=1) + a[:, 0], rtol=1e-5)


def test_intermediate_as_argument_is_a_buffer_not_an_allocation():
    A, B, C, D = _chain()
    f = te.create_prim_func([A, B, D])
    root = [b for b in nodes(f, tir.Block) if b.name_hint == "root"][0]
    assert [b.name for b in root.alloc_buffers] == ["C"]
    a = RNG.random((16, 8)).astype("float32")
    b, d = np.zeros((16, 8), "float32"), np.zeros(16, "float32")
    tepad.build(f)(a, b, d)
    np.testing.assert_allclose(b, a * 2.0)
    np.testing.assert_allclose(d, (a * 2.0).sum(axis=1) + a[:, 0], rtol=1e-5)


def test_stencil_read_region_and_where_condition():
    A = te.placeholder((20,), name="A")
    B = te.compute((18,), lambda i: A[i] + A[i + 1] + A[i + 2], name="B")
    k = te.reduce_axis((0, 20), name="k")
    C = te.compute((1,), lambda _: te.sum(A[k], axis=k, where=A[k] > 0.5), name="C")
    f = te.create_prim_func([A, B, C])
    blk_b = [b for b in _blocks(f) if b.name_hint == "B"][0]
    (r,) = blk_b.reads
    assert int(r.region[0].extent) == 3                       # A[v_i:v_i + 3]
    assert "T.reads(A[v_i:v_i + 3])" in f.script()
    a = RNG.random(20).astype("float32")
    b, c = np.zeros(18, "float32"), np.zeros(1, "float32")
    tepad.build(f)(a, b, c)
    np.testing.assert_allclose(b, a[:-2] + a[1:-1] + a[2:], rtol=1e-6)
    np.testing.assert_allclose(c, [a[a > 0.5].sum()], rtol=1e-5)


def test_symbolic_shape_and_tuple_reducer():
    n = te.var("n")
    A = te.placeholder((n, 6), name="A")
    k = te.reduce_axis((0, 6), name="k")
    fcomb = lambda x, y: (tir.select(x[1] >= y[1], x[0], y[0]),
                          tir.select(x[1] >= y[1], x[1], y[1]))
    fid = lambda t0, t1: (tir.const(-1, t0), tir.min_value(t1))
    argmax = te.comm_reducer(fcomb, fid, name="argmax")
    idx, val = te.compute((n,), lambda i: argmax((k, A[i, k]), axis=k), name="T")
    f = te.create_prim_func([A, idx, val])
    assert not tir.verify(f)
    mod = tepad.build(f)
    a = RNG.random((5, 6)).astype("float32")
    i_out, v_out = np.zeros(5, "int32"), np.zeros(5, "float32")
    mod(a, i_out, v_out)
    np.testing.assert_array_equal(i_out, a.argmax(axis=1))
    np.testing.assert_allclose(v_out, a.max(axis=1))


def test_block_passes_one_by_one():
    A = te.placeholder((4, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((4,), lambda i: te.max(A[i, k], axis=k), name="B")
    f = te.create_prim_func([A, B])
    g = lower_init_block(f)
    (blk,) = _blocks(g)
    assert blk.init is None and isinstance(blk.body, tir.SeqStmt)
    assert isinstance(blk.body[0], tir.IfThenElse)           # if v_k == 0: B[v_i] = -inf
    assert lower_init_block(g) is g
    h = convert_blocks_to_opaque(g)
    (blk,) = _blocks(h)
    assert blk.iter_vars == () and not tir.verify(h)
    with pytest.raises(tepad.TepadError, match="LowerInitBlock"):
        lower_opaque_block(f)
    flat = lower_opaque_block(h)
    assert not nodes(flat, tir.Block) and not nodes(flat, tir.BlockRealize)
    mod = tir.transform.Sequential([tir.transform.LowerInitBlock(),
                                    tir.transform.ConvertBlocksToOpaque(),
                                    tir.transform.LowerOpaqueBlock()])(
        tepad.ir.IRModule({"main": f}))
    a = RNG.random((4, 8)).astype("float32")
    b = np.zeros(4, "float32")
    tepad.build(mod)(a, b)
    np.testing.assert_allclose(b, a.max(axis=1))


def test_structural_equality_and_verifier():
    A, B, C, D = _chain()
    f1 = te.create_prim_func([A, D])
    f2 = te.create_prim_func([A, D])
    tir.assert_structural_equal(f1.body, f2.body)
    E2 = te.compute((16,), lambda i: C[i] - A[i, 0], name="D")
    assert not tir.structural_equal(f1.body, te.create_prim_func([A, E2]).body, True)
    # a block body reading a variable that nothing binds is reported
    (blk,) = [b for b in _blocks(f1) if b.name_hint == "D"]
    stray = tir.Var("stray", "int32")
    bad = blk.replace(body=tir.BufferStore(blk.body.buffer, blk.body.value, [stray]))
    assert any("stray" in p for p in tir.verify(f1.with_body(
        tir.BlockRealize([tir.const(0)], True, bad))))


def test_lower_of_a_prim_func_and_errors():
    A, B, C, D = _chain()
    mod = tepad.lower(te.create_prim_func([A, D]), name="chain")
    assert "chain" in mod and not nodes(mod["chain"], tir.Block)
    with pytest.raises(tepad.TepadError, match="placeholder A"):
        te.create_prim_func([D])
    X = te.placeholder((4,), name="X")
    ext = te.extern((4,), [X], lambda ins, outs: tir.call_extern("int32", "f"), name="E")
    with pytest.raises(tepad.TepadError, match="ExternOp"):
        te.create_prim_func([X, ext])
    with pytest.raises(tepad.TepadError, match="te.Tensor"):
        te.create_prim_func([A, "D"])


def test_a_scan_is_refused_by_its_kind_before_its_state():
    m, n = te.var("m"), te.var("n")
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i], name="update")
    scan = te.scan(init, update, state, inputs=[X])
    # the state placeholder is not an argument, but the scan is what cannot become blocks
    with pytest.raises(TypeError, match="Unsupported Operation: ScanOp"):
        te.create_prim_func([X, scan])


def test_scalar_parameter_and_two_outputs():
    A = te.placeholder((12,), name="A")
    scale = te.var("scale", dtype="float32")
    P, Q = te.compute((12,), lambda i: (A[i] * scale, A[i] + scale), name="PQ")
    f = te.create_prim_func([A, scale, P, Q])
    assert f.params[1] is scale
    (blk,) = _blocks(f)
    assert [r.buffer.name for r in blk.writes] == ["PQ.v0", "PQ.v1"]
    a = RNG.random(12).astype("float32")
    p, q = np.zeros_like(a), np.zeros_like(a)
    tepad.build(f)(a, 1.5, p, q)
    np.testing.assert_allclose(p, a * 1.5, rtol=1e-6)
    np.testing.assert_allclose(q, a + 1.5, rtol=1e-6)
