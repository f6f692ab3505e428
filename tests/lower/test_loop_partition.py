"""LoopPartition (tir.transform.LoopPartition, PassContext config tir.LoopPartition): split
tails lose their guards in the main loop; numerics match numpy."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.lower.passes import loop_partition

from lower_helpers import calls, nodes

RNG = np.random.default_rng(3)


def _split_add(n):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=8)
    return s, A, B


def _likely(func):
    return calls(func, "tir.likely")


def _run(mod, *shapes_out, inputs):
    outs = [np.zeros(sh, "float32") for sh in shapes_out]
    mod(*inputs, *outs)
    return outs


def test_symbolic_split_main_loop_has_no_guard():
    n = te.var("n")
    s, A, B = _split_add(n)
    f = tepad.lower(s, [A, B])["main"]
    assert len(_likely(f)) == 1
    g = loop_partition(f)
    loops = [x for x in nodes(g, tir.For) if x.loop_var.name == "i.outer"]
    assert len(loops) == 2                        # main loop and tail
    main = loops[0]
    assert not _likely(main), "the main loop keeps no guard"
    assert len(_likely(g)) == 1                   # the tail keeps it
    mod = tepad.build(g)
    for size in (0, 1, 7, 8, 29, 64):
        a = RNG.random(size).astype("float32")
        (b,) = _run(mod, (size,), inputs=[a])
        np.testing.assert_allclose(b, a + 1.0)


def test_constant_loops_only_with_partition_const_loop():
    s, A, B = _split_add(100)
    f = tepad.lower(s, [A, B])["main"]
    assert loop_partition(f) is f                 # constant extents: left alone by default
    g = loop_partition(f, partition_const_loop=True)
    assert not _likely(g), "constant split: main loop 12x8 and tail 4, no guard left"
    extents = sorted(int(x.extent) for x in nodes(g, tir.For))
    assert extents == [4, 8, 12]
    a = RNG.random(100).astype("float32")
    (b,) = _run(tepad.build(g), (100,), inputs=[a])
    np.testing.assert_allclose(b, a + 1.0)


def test_no_unroll_loop_with_extent_one_keeps_the_loop():
    s, A, B = _split_add(100)
    f = tepad.lower(s, [A, B])["main"]
    g = loop_partition(f, partition_const_loop=True, no_unroll_loop_with_extent_one=True)
    assert 1 in [int(x.extent) for x in nodes(g, tir.For)]
    h = loop_partition(f, partition_const_loop=True)
    assert 1 not in [int(x.extent) for x in nodes(h, tir.For)]
    a = RNG.random(100).astype("float32")
    (b,) = _run(tepad.build(g), (100,), inputs=[a])
    np.testing.assert_allclose(b, a + 1.0)


def test_pass_context_config_runs_it_in_lower():
    s, A, B = _split_add(100)
    assert _likely(tepad.lower(s, [A, B])["main"])
    cfg = {"tir.LoopPartition": {"partition_const_loop": True}}
    with tepad.transform.PassContext(config=cfg):
        f = tepad.lower(s, [A, B])["main"]
        mod = tepad.build(s, [A, B])
    assert not _likely(f)
    a = RNG.random(100).astype("float32")
    (b,) = _run(mod, (100,), inputs=[a])
    np.testing.assert_allclose(b, a + 1.0)


def test_tvm_pass_object_reads_the_config():
    s, A, B = _split_add(100)
    mod = tepad.lower(s, [A, B])
    assert tir.transform.LoopPartition()(mod) is mod
    with tepad.transform.PassContext(config={"tir.LoopPartition":
                                             {"partition_const_loop": True}}):
        out = tir.transform.LoopPartition()(mod)
    assert not _likely(out["main"])


def test_disabled_and_bad_config():
    s, A, B = _split_add(100)
    cfg = {"tir.LoopPartition": {"partition_const_loop": True}}
    with tepad.transform.PassContext(config=cfg, disabled_pass=["tir.LoopPartition"]):
        assert _likely(tepad.lower(s, [A, B])["main"])
    with pytest.raises(tepad.TepadError, match="partition_const_loop"):
        with tepad.transform.PassContext(config={"tir.LoopPartition": {"partition": 1}}):
            tepad.lower(s, [A, B])


def test_2d_tile_with_two_tails():
    M, N = 30, 21
    A = te.placeholder((M, N), name="A")
    B = te.compute((M, N), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[B].tile(B.op.axis[0], B.op.axis[1], 8, 4)
    with tepad.transform.PassContext(config={"tir.LoopPartition":
                                             {"partition_const_loop": True}}):
        f = tepad.lower(s, [A, B])["main"]
        mod = tepad.build(s, [A, B])
    assert not _likely(f)
    a = RNG.random((M, N)).astype("float32")
    (b,) = _run(mod, (M, N), inputs=[a])
    np.testing.assert_allclose(b, a * 2.0)


def test_reduction_with_split_reduce_axis():
    n = te.var("n")
    A = te.placeholder((4, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].split(k, factor=16)
    with tepad.transform.PassContext(config={"tir.LoopPartition": {}}):
        f = tepad.lower(s, [A, B])["main"]
        mod = tepad.build(s, [A, B])
    ko = [x for x in nodes(f, tir.For) if x.loop_var.name.startswith("k.outer")]
    assert len(ko) == 2 and not _likely(ko[0])
    for size in (5, 16, 50):
        a = RNG.random((4, size)).astype("float32")
        (b,) = _run(mod, (4,), inputs=[a])
        np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)


def test_if_then_else_expression_and_parallel_loop():
    """``B[i] = if_then_else(likely(i < m), A[i], 0)`` over a parallel loop of n: the main
    part reads A unguarded, the rest stores the else value (its guard proven false)."""
    from lower_helpers import func as make_func
    n, m = tir.Var("n", "int32"), tir.Var("m", "int32")
    A = tir.decl_buffer((n,), "float32", "A")
    B = tir.decl_buffer((n,), "float32", "B")
    i = tir.Var("i", "int32")
    value = tir.if_then_else(tir.likely(i < m), A[i], tir.const(0.0, "float32"))
    body = tir.For(i, 0, n, "parallel", tir.BufferStore(B, value, [i]))
    f = make_func([A, B], body)
    f = tir.PrimFunc(list(f.params) + [m], body, f.buffer_map, f.attrs)
    g = loop_partition(f)
    loops = nodes(g, tir.For)
    assert len(loops) == 2 and all(x.kind == tir.ForKind.PARALLEL for x in loops)
    assert not calls(g, "tir.if_then_else") and not _likely(g)
    assert not tir.verify(g)
    mod = tepad.build(g)
    for size, mv in ((10, 4), (10, 12), (7, 0), (7, -3)):
        a = RNG.random(size).astype("float32")
        with_m = np.zeros_like(a)
        mod(a, with_m, mv)
        np.testing.assert_allclose(with_m, np.where(np.arange(size) < mv, a, 0.0))


def test_partition_hint_pragma_takes_plain_conditions():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: te.if_then_else(i < 5, A[i] * 2.0, A[i]), name="B")
    s = te.create_schedule(B.op)
    s[B].pragma(B.op.axis[0], "loop_partition_hint")
    f = tepad.lower(s, [A, B])["main"]
    assert calls(f, "tir.if_then_else")
    g = loop_partition(f)                     # constant loop, no likely: the hint decides
    assert not calls(g, "tir.if_then_else")
    assert sorted(int(x.extent) for x in nodes(g, tir.For)) == [5, 11]
    a = RNG.random(16).astype("float32")
    (b,) = _run(tepad.build(g), (16,), inputs=[a])
    np.testing.assert_allclose(b, np.where(np.arange(16) < 5, a * 2.0, a))


def test_required_pass_runs_it_with_default_options():
    n = te.var("n")
    s, A, B = _split_add(n)
    with tepad.transform.PassContext(required_pass=["tir.LoopPartition"]):
        f = tepad.lower(s, [A, B])["main"]
    assert len([x for x in nodes(f, tir.For) if x.loop_var.name.startswith("i.outer")]) == 2


def test_inner_extent_reading_the_loop_variable_gives_no_bound():
    """An inner loop over ``min(5 - jo*4, 4)`` (a split of 5 by 4) relaxes to bounds that
    read ``jo`` itself: they are no bounds on ``jo``, and the loop is left alone."""
    from lower_helpers import func as make_func
    n = tir.Var("n", "int32")
    A = tir.decl_buffer((8,), "float32", "A")
    jo, ji = tir.Var("jo", "int32"), tir.Var("ji", "int32")
    idx = jo * 4 + ji
    store = tir.IfThenElse(tir.likely(idx + n < 7), tir.BufferStore(A, tir.const(1.0, "float32"),
                                                                     [idx]))
    body = tir.For(jo, 0, 2, "serial", tir.For(ji, 0, tir.min(5 - jo * 4, 4), "serial", store))
    f = tir.PrimFunc([A.data, n], body, {A.data: A})
    g = loop_partition(f, partition_const_loop=True)
    assert not tir.verify(g)
    mod = tepad.build(g)
    for nv in (0, 3):
        a = np.zeros(8, "float32")
        mod(a, nv)
        want = np.zeros(8, "float32")
        want[:max(0, min(5, 7 - nv))] = 1.0
        np.testing.assert_array_equal(a, want)


def test_two_dimensional_tiles_lose_both_guards_in_their_main_pieces():
    # the stage's two split guards come as one likely(a and b): each loop is partitioned on
    # its own conjunct, the other one stays until its loop is reached
    A = te.placeholder((30, 21), name="A")
    B = te.compute((30, 21), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    io, ii = s[B].split(B.op.axis[0], factor=8)
    jo, ji = s[B].split(B.op.axis[1], factor=8)
    s[B].reorder(io, jo, ii, ji)
    with tepad.transform.PassContext(config={"tir.LoopPartition":
                                             {"partition_const_loop": True}}):
        g = tepad.lower(s, [A, B])["main"]
    assert not nodes(g, tir.IfThenElse) and not _likely(g)
    a = RNG.random((30, 21), dtype="float32")
    (b,) = _run(tepad.build(g), (30, 21), inputs=[a])
    np.testing.assert_allclose(b, a * 2.0, rtol=1e-6)


def test_equality_condition_partitions_around_its_one_value():
    n = tir.Var("n", "int32")
    out = tir.decl_buffer((10,), "int32", "out")
    i = tir.Var("i", "int32")
    value = tir.Select(tir.Call("bool", "tir.likely", [tir.EQ(i, 5)]), n, i)
    body = tir.For(i, 0, 10, body=tir.BufferStore(out, value, [i]))
    f = tir.PrimFunc([out.data, n], body, {out.data: out})
    g = loop_partition(f, partition_const_loop=True)
    assert not nodes(g, tir.Select)
    got = np.zeros(10, "int32")
    tepad.build(g)(got, 77)
    want = np.arange(10, dtype="int32")
    want[5] = 77
    np.testing.assert_array_equal(got, want)
