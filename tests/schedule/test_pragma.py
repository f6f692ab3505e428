"""Stage.pragma: recorded on the IterVar, emitted as ``pragma_<type>`` AttrStmts around the
loop, honoured where tepad knows the pragma (auto unrolling, debug_skip_region), kept and
ignored otherwise; the tir.UnrollLoop PassContext config."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te, tir
from tepad.lower.pipeline import run_pipeline, schedule_to_primfunc
from tepad.tir.itervar import IterVarType


def copy2d(m=64, n=8):
    A = te.placeholder((m, n), name="A")
    B = te.compute((m, n), lambda i, j: A[i, j] * 2.0 + 1.0, name="B")
    return A, B


def attrs_of(stmt):
    out = []
    tir.post_order_visit(stmt, lambda x: out.append(x) if isinstance(x, tir.AttrStmt) else None)
    return out


def loops_of(stmt):
    out = []
    tir.post_order_visit(stmt, lambda x: out.append(x) if isinstance(x, tir.For) else None)
    return out


def run(s, args, shape):
    a = np.random.rand(*shape).astype("float32")
    b = np.empty(shape, "float32")
    tepad.build(s, args)(a, b)
    return a, b


def test_pragma_is_recorded_and_unroll_vectorize_are_annotations():
    A, B = copy2d()
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    s[B].pragma(xo, "pragma1")
    s[B].pragma(xo, "pragma2", 7)
    s[B].pragma(xi, "vectorize")
    s[B].pragma(B.op.axis[1], "unroll")
    attr = s[B].iter_var_attrs[xo]
    assert [k.value for k in attr.pragma_keys] == ["pragma1", "pragma2"]
    assert attr.pragma_values[0] is None and attr.pragma_values[1].value == 7
    assert s[B].iter_var_attrs[xi].iter_type == IterVarType.Vectorized
    assert s[B].iter_var_attrs[B.op.axis[1]].iter_type == IterVarType.Unrolled


def test_pragma_attrs_wrap_the_loop_in_order():
    A, B = copy2d()
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    s[B].pragma(xo, "first")
    s[B].pragma(xo, "second", "text")
    f = schedule_to_primfunc(s, [A, B])       # the entry: before any pass
    outer = f.body
    assert isinstance(outer, tir.AttrStmt) and outer.attr_key == "pragma_first"
    assert outer.node is xo and outer.value.value == 1
    inner = outer.body
    assert inner.attr_key == "pragma_second" and inner.value.value == "text"
    assert isinstance(inner.body, tir.For) and inner.body.loop_var is xo.var


def test_unknown_pragma_is_kept_through_build_and_changes_nothing():
    A, B = copy2d()
    s = te.create_schedule(B.op)
    s[B].pragma(B.op.axis[0], "import_llvm", "; not linked by tepad")
    s[B].pragma(B.op.axis[1], "no_such_pragma")
    built = run_pipeline(schedule_to_primfunc(s, [A, B]))
    keys = {a.attr_key for a in attrs_of(built.body)}
    assert {"pragma_import_llvm", "pragma_no_such_pragma"} <= keys
    a, b = run(s, [A, B], (64, 8))
    np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-6)


def test_auto_unroll_max_step_unrolls_small_inner_loops_only():
    A, B = copy2d(64, 8)
    s = te.create_schedule(B.op)
    # the inner loop (8 stores) fits 16 steps; the outer one (64 * 8) does not
    s[B].pragma(B.op.axis[0], "auto_unroll_max_step", 16)
    built = run_pipeline(schedule_to_primfunc(s, [A, B]))
    loops = loops_of(built.body)
    assert [lp.loop_var.name for lp in loops] == ["i"]
    stores = []
    tir.post_order_visit(built.body,
                         lambda x: stores.append(x) if isinstance(x, tir.BufferStore) else None)
    assert len(stores) == 8
    assert not any(a.attr_key.startswith("pragma_auto") for a in attrs_of(built.body))
    a, b = run(s, [A, B], (64, 8))
    np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-6)


def test_auto_unroll_counts_the_product_of_nested_extents():
    A = te.placeholder((4, 4, 4), name="A")
    B = te.compute((4, 4, 4), lambda i, j, k: A[i, j, k] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].pragma(B.op.axis[0], "auto_unroll_max_step", 16)
    built = run_pipeline(schedule_to_primfunc(s, [A, B]))
    # k (4 steps) and j (16 steps) unroll; i would make 64
    assert [lp.loop_var.name for lp in loops_of(built.body)] == ["i"]
    a = np.random.rand(4, 4, 4).astype("float32")
    b = np.empty_like(a)
    tepad.build(s, [A, B])(a, b)
    np.testing.assert_allclose(b, a + 1, rtol=1e-6)


def test_unroll_loop_config_in_pass_context():
    A, B = copy2d(64, 8)
    s = te.create_schedule(B.op)
    cfg = {"tir.UnrollLoop": {"auto_max_step": 16, "explicit_unroll": True}}
    with tepad.transform.PassContext(config=cfg):
        built = run_pipeline(schedule_to_primfunc(s, [A, B]),
                             opts=tepad.lower.Options.from_context())
        a, b = run(s, [A, B], (64, 8))
    assert len(loops_of(built.body)) == 1
    np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-6)
    plain = run_pipeline(schedule_to_primfunc(s, [A, B]))
    assert len(loops_of(plain.body)) == 2
    with pytest.raises(TepadError, match="auto_max_stepp"):
        with tepad.transform.PassContext(config={"tir.UnrollLoop": {"auto_max_stepp": 1}}):
            tepad.lower.Options.from_context()


def test_debug_skip_region_drops_the_loop():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((16,), lambda i: A[i] * 3.0, name="C")
    D = te.compute((16,), lambda i: B[i] + C[i], name="D")
    s = te.create_schedule(D.op)
    s[D].pragma(D.op.axis[0], "debug_skip_region")
    f = tepad.lower(s, [A, D])["main"]
    stores = []
    tir.post_order_visit(f.body, lambda x: stores.append(x.buffer.name)
                         if isinstance(x, tir.BufferStore) else None)
    assert "D" not in stores and {"B", "C"} <= set(stores)
    a = np.random.rand(16).astype("float32")
    d = np.full(16, -7.0, "float32")
    tepad.build(s, [A, D])(a, d)
    np.testing.assert_array_equal(d, np.full(16, -7.0, "float32"))   # never written


def test_parallel_pragmas_build_and_compute():
    # TVM's persistent-thread pragmas: tepad launches every parallel loop itself, so they
    # are accepted and the result is the same
    n = 128
    A = te.placeholder((n,), name="A")
    B = te.compute(A.shape, lambda i: A[i] + 1.0, name="B")
    C = te.compute(A.shape, lambda i: te.sqrt(B[i]) * 2.0 + 2.0, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=8)
    xo1, xo2 = s[C].split(xo, nparts=1)
    s[B].compute_at(s[C], xo1)
    s[B].parallel(s[B].op.axis[0])
    s[B].pragma(s[B].op.axis[0], "parallel_barrier_when_finish")
    s[C].parallel(xi)
    s[C].pragma(xo1, "parallel_launch_point")
    s[C].pragma(xi, "parallel_stride_pattern")
    a = np.random.rand(n).astype("float32")
    c = np.empty(n, "float32")
    tepad.build(s, [A, C])(a, c)
    np.testing.assert_allclose(c, np.sqrt(a + 1) * 2 + 2, rtol=1e-5)


def test_pragma_on_a_reduction_init_and_update():
    A = te.placeholder((8, 16), name="A")
    k = te.reduce_axis((0, 16), name="k")
    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].pragma(k, "auto_unroll_max_step", 32)
    s[B].pragma(B.op.axis[0], "marker")
    built = run_pipeline(schedule_to_primfunc(s, [A, B]))
    assert [lp.loop_var.name for lp in loops_of(built.body)] == ["i"]
    a = np.random.rand(8, 16).astype("float32")
    b = np.empty(8, "float32")
    tepad.build(s, [A, B])(a, b)
    np.testing.assert_allclose(b, a.sum(1), rtol=1e-5)


def test_pragma_errors_name_the_stage():
    A, B = copy2d()
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    with pytest.raises(TepadError, match="stage B.*no longer a leaf"):
        s[B].pragma(B.op.axis[0], "x")
    with pytest.raises(TepadError, match="stage B.*pragma type"):
        s[B].pragma(xo, "")
    with pytest.raises(TepadError, match="stage A.*compute stage"):
        s[A].pragma(xo, "x")


def test_pragma_changes_the_build_fingerprint():
    A, B = copy2d()
    s = te.create_schedule(B.op)
    before = s.fingerprint()
    s[B].pragma(B.op.axis[0], "auto_unroll_max_step", 4)
    assert s.fingerprint() != before
