"""Block nodes (Block, BlockRealize, BufferRegion, MatchBufferRegion): construction checks,
printing, structural equality, visitor/mutator and the verifier."""
import pytest

import tepad
from tepad import tir


def _block(name="B", with_match=False):
    A = tir.decl_buffer((8, 8), "float32", "A")
    B = tir.decl_buffer((8,), "float32", "B")
    i, k = tir.Var("i", "int32"), tir.Var("k", "int32")
    vi, vk = tir.Var("v_i", "int32"), tir.Var("v_k", "int32")
    ivs = [tir.IterVar(tir.Range(0, 8), vi, tir.IterVar.DataPar),
           tir.IterVar(tir.Range(0, 8), vk, tir.IterVar.CommReduce)]
    body = tir.BufferStore(B, B[vi] + A[vi, vk], [vi])
    init = tir.BufferStore(B, tir.const(0.0, "float32"), [vi])
    match = []
    if with_match:
        sub = tir.decl_buffer((8,), "float32", "A_row")
        match = [tir.MatchBufferRegion(sub, tir.BufferRegion(A, [tir.Range.from_min_extent(
            vi, 1), tir.Range(0, 8)]))]
    blk = tir.Block(ivs, [tir.BufferRegion(A, [vi, vk])], [tir.BufferRegion(B, [vi])], name,
                    body, init, match_buffers=match)
    nest = tir.For(i, 0, 8, "serial", tir.For(k, 0, 8, "serial",
                                                tir.BlockRealize([i, k], True, blk)))
    return tir.PrimFunc([A, B], nest), (A, B, i, k, vi, vk)


def test_construction_checks():
    f, (A, B, i, k, vi, vk) = _block()
    realize = f.body.body.body
    with pytest.raises(tepad.TepadError, match="2 iter vars"):
        tir.BlockRealize([i], True, realize.block)
    with pytest.raises(tepad.TepadError, match="ranges"):
        tir.BufferRegion(A, [vi])
    with pytest.raises(tepad.TepadError, match="BufferRegions"):
        tir.Block([], [A], [], "x", tir.Evaluate(0))


def test_printing():
    f, _ = _block(with_match=True)
    text = f.script()
    for line in ('with T.block("B"):', "v_i = T.axis.spatial(8, i)",
                 "v_k = T.axis.reduce(8, k)", "T.reads(A[v_i, v_k])", "T.writes(B[v_i])",
                 "A_row = T.match_buffer(A[v_i, 0:8])", "with T.init():",
                 "B[v_i] = B[v_i] + A[v_i, v_k]"):
        assert line in text, line
    assert str(tir.BufferRegion.full_region(f.buffer_map[f.params[0]])) == "A[0:8, 0:8]"


def test_structural_equality_maps_block_vars():
    f1, _ = _block()
    f2, _ = _block()
    assert tir.structural_equal(f1.body, f2.body, map_free_vars=True)
    assert not tir.structural_equal(f1.body, f2.body)
    f3, _ = _block(name="C")
    assert not tir.structural_equal(f1.body, f3.body, map_free_vars=True)


def test_visitor_and_mutator_see_iter_vars():
    f, (A, B, i, k, vi, vk) = _block()
    assert {vi, vk} <= tir.collect_vars(f.body)
    n = tir.Var("n", "int32")

    class Grow(tir.Mutator):        # rewrites every extent 8 (iter var domains too)
        def visit_IntImm(self, e):
            return n if e.value == 8 else e
    g = Grow().visit(f.body)
    blk = g.body.body.block
    assert all(iv.dom.extent is n for iv in blk.iter_vars)
    fresh = tir.Var("w", "int32")
    h = tir.substitute(f.body, {vi: fresh})
    assert h.body.body.block.iter_vars[0].var is fresh


def test_verifier_on_blocks():
    f, (A, B, i, k, vi, vk) = _block(with_match=True)
    assert tir.verify(f) == []
    blk = f.body.body.body.block
    C = tir.decl_buffer((8,), "float32", "C")
    bad = blk.replace(writes=(tir.BufferRegion(C, [vi]),))
    g = f.with_body(tir.BlockRealize([0, 0], True, bad))
    problems = tir.verify(g)
    assert any("C" in p and "not declared" in p for p in problems)
    twice = tir.SeqStmt([f.body, f.body])
    assert any("bound twice" in p for p in tir.verify(f.with_body(twice)))
