"""Stage.prefetch and tir.Prefetch: markers -> Prefetch of the region read iterations ahead
(inject_prefetch) -> loops of llvm.prefetch calls, one per cache line (storage_flatten)."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te, tir
from tepad.lower.passes import inject_prefetch, storage_flatten
from tepad.lower.pipeline import run_pipeline, schedule_to_primfunc


def nodes(stmt, cls):
    out = []
    tir.post_order_visit(stmt, lambda x: out.append(x) if isinstance(x, cls) else None)
    return out


def prefetch_calls(stmt):
    return [e for e in nodes(stmt, tir.Call) if e.op == "tir.prefetch"]


def rowsum(n=100, k=64):
    A = te.placeholder((n, k), name="A")
    r = te.reduce_axis((0, k), name="r")
    B = te.compute((n,), lambda i: te.sum(A[i, r], axis=r), name="B")
    return A, B


def test_flatten_prefetch_region_of_a_3d_buffer():
    # TVM's test_flatten_prefetch: 4 floats per row of the last axis fit 4 to a 64-byte line
    A = te.placeholder((25, 100, 4), name="A")
    Ab = tir.decl_buffer(A.shape, A.dtype, name="A")
    i, j = te.size_var("i"), te.size_var("j")
    region = [tir.Range.from_min_extent(lo, ext) for lo, ext in ((i, 2), (j, 8), (0, 4))]
    func = te.schedule.SchedulePostProcToPrimFunc([Ab], tir.Prefetch(Ab, region), {A: Ab})
    mod = tepad.transform.Sequential([tir.transform.StorageFlatten(64),
                                      tir.transform.Simplify()])(tepad.IRModule.from_expr(func))
    body = mod["main"].body
    assert isinstance(body, tir.For) and body.extent.value == 2
    assert isinstance(body.body, tir.For) and body.body.extent.value == 2   # 8 rows / 4
    loads = nodes(body, tir.BufferLoad)
    assert loads and all(len(ld.indices) == 1 for ld in loads)
    assert len(prefetch_calls(body)) == 1


def test_stage_prefetch_marks_and_injects_the_next_rows_region():
    A, B = rowsum()
    s = te.create_schedule(B.op)
    s[B].prefetch(A, B.op.axis[0], 2)
    f = inject_prefetch(schedule_to_primfunc(s, [A, B]))
    (pf,) = nodes(f.body, tir.Prefetch)
    assert pf.buffer.name == "A"
    (loop,) = [x for x in nodes(f.body, tir.For) if x.loop_var.name == "i"]
    ana = tepad.arith.Analyzer()
    r0, r1 = pf.bounds
    assert ana.can_prove_equal(r0.min, loop.loop_var + 2)
    assert [int(ana.simplify(x)) for x in (r0.extent, r1.min, r1.extent)] == [1, 0, 64]
    built = run_pipeline(schedule_to_primfunc(s, [A, B]))
    assert len(prefetch_calls(built.body)) == 1
    assert not nodes(built.body, tir.Prefetch)


@pytest.mark.parametrize("bounds_check", [False, True])
def test_prefetch_numerics_unchanged(bounds_check):
    A, B = rowsum()
    s = te.create_schedule(B.op)
    io, ii = s[B].split(B.op.axis[0], factor=8)
    s[B].prefetch(A, io, 1)
    mod = tepad.build(s, [A, B], bounds_check=bounds_check)
    assert "llvm.prefetch" in mod.ll
    a = np.random.rand(100, 64).astype("float32")
    b = np.empty(100, "float32")
    mod(a, b)
    np.testing.assert_allclose(b, a.sum(1), rtol=1e-5)


def test_prefetch_addresses_stay_inside_the_buffer():
    # the last iterations prefetch past the end of A: the indices are clamped
    A, B = rowsum(10, 64)
    s = te.create_schedule(B.op)
    s[B].prefetch(A, B.op.axis[0], 3)
    f = run_pipeline(schedule_to_primfunc(s, [A, B]))
    (call,) = prefetch_calls(f.body)
    (load,) = nodes(call, tir.BufferLoad)
    assert "min" in str(load.indices[0])


def test_inject_prefetch_without_a_loop_drops_the_marker():
    Ab = tir.decl_buffer((4,), "float32", name="A")
    Bb = tir.decl_buffer((4,), "float32", name="B")
    body = tir.AttrStmt(Ab, "prefetch_scope", 1,
                        tir.BufferStore(Bb, tir.BufferLoad(Ab, [tir.const(0)]), [tir.const(0)]))
    f = tir.PrimFunc([Ab.data, Bb.data], body, {Ab.data: Ab, Bb.data: Bb})
    g = inject_prefetch(f)
    assert isinstance(g.body, tir.BufferStore)
    assert storage_flatten(g) is not None


def test_prefetch_errors():
    A, B = rowsum()
    s = te.create_schedule(B.op)
    io, ii = s[B].split(B.op.axis[0], factor=8)
    with pytest.raises(TepadError, match="stage B.*no longer a leaf"):
        s[B].prefetch(A, B.op.axis[0], 1)
    with pytest.raises(TepadError, match="stage B.*te.Tensor"):
        s[B].prefetch("A", io, 1)
    with pytest.raises(TepadError, match="stage B.*offset must be an integer"):
        s[B].prefetch(A, io, 1.5)


def test_prefetch_of_an_intermediate_in_scope_or_not():
    A = te.placeholder((16, 16), name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((16, 16), lambda i, j: B[i, j] * 2.0, name="C")
    for attach in ("root", "at", "inline"):
        s = te.create_schedule(C.op)
        s[C].prefetch(B, C.op.axis[0], 1)
        if attach == "at":
            s[B].compute_at(s[C], C.op.axis[1])
        elif attach == "inline":
            s[B].compute_inline()
        f = inject_prefetch(schedule_to_primfunc(s, [A, C]))
        assert len(nodes(f.body, tir.Prefetch)) == (1 if attach == "root" else 0), attach
        a = np.random.rand(16, 16).astype("float32")
        c = np.empty_like(a)
        tepad.build(s, [A, C])(a, c)
        np.testing.assert_allclose(c, (a + 1) * 2, rtol=1e-6)
