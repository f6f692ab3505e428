"""ScheduleOps and builds of te.scan: the loop nest (init rows, then the time loop with the body
inside), body stages inlined / computed at / split / parallel, several states; numeric results
against numpy and against tepad.testing.reference (TVM's test_schedule_scan,
test_scan_inline1/2 and the scan tutorial)."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import tepad
from tepad import TepadError, te, tir
from tepad.lower.pipeline import schedule_to_primfunc
from tepad.testing import reference
from tepad.tir.functor import post_order_visit
from tepad.tir.stmt import BufferRealize, BufferStore, For

RNG = np.random.default_rng(15)


def rand(*shape):
    return RNG.random(shape, dtype=np.float32)


def nodes(func, cls):
    out = []
    post_order_visit(func.body, lambda n: out.append(n) if isinstance(n, cls) else None)
    return out


def cumsum_def(m, n):
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i], name="update")
    return X, state, init, update, te.scan(init, update, state, name="cumsum")


def run(s, args, arrays, **kw):
    f = tepad.build(s, args, **kw)
    f(*arrays)
    return arrays


def test_cumsum_tutorial_symbolic_shape():
    m, n = te.var("m"), te.var("n")
    X, state, init, update, res = cumsum_def(m, n)
    s = te.create_schedule(res.op)
    a = rand(9, 13)
    _, b = run(s, [X, res], [a, np.zeros_like(a)])
    np.testing.assert_allclose(b, np.cumsum(a, axis=0), rtol=1e-5)
    np.testing.assert_allclose(reference(res, {X: a}), np.cumsum(a, axis=0), rtol=1e-5)


def test_loop_nest_init_rows_then_time_loop_one_state_buffer():
    X, state, init, update, res = cumsum_def(6, 4)
    s = te.create_schedule(res.op)
    f = schedule_to_primfunc(s, [X, res])
    stores = nodes(f, BufferStore)
    # init, update and the state placeholder are all the scan's buffer
    assert {st.buffer.name for st in stores} == {"cumsum"}
    assert not nodes(f, BufferRealize)
    loops = [lp for lp in nodes(f, For)]
    time = [lp for lp in loops if lp.loop_var.name.startswith("cumsum")]
    assert len(time) == 1 and time[0].extent.value == 5
    # the update store sits inside the time loop, the init store outside it
    inside = []
    post_order_visit(time[0].body,
                     lambda n: inside.append(n) if isinstance(n, BufferStore) else None)
    assert len(inside) == 1 and len(stores) == 2


def test_state_placeholder_argument_stands_for_the_scan_output():
    # TVM's test_schedule_scan lowers with only the state placeholder as argument
    m, n = te.var("m"), te.var("n")
    x = te.compute((m, n), lambda i, j: tir.const(1, "float32"), name="x")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: x[0, i])
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + x[t, i])
    res = te.scan(init, update, state)
    s = te.create_schedule(res.op)
    out = np.zeros((5, 3), "float32")
    run(s, [state], [out])
    np.testing.assert_allclose(out, np.cumsum(np.ones((5, 3)), axis=0))


def test_several_states():
    m, n = 7, 5
    X = te.placeholder((m, n), name="X")
    s1, s2 = te.placeholder((m, n), name="s1"), te.placeholder((m, n), name="s2")
    i1 = te.compute((1, n), lambda _, i: X[0, i], name="i1")
    i2 = te.compute((1, n), lambda _, i: X[0, i] * 2, name="i2")
    u1 = te.compute((m, n), lambda t, i: s1[t - 1, i] + s2[t - 1, i], name="u1")
    u2 = te.compute((m, n), lambda t, i: s2[t - 1, i] * 0.5 + X[t, i], name="u2")
    r1, r2 = te.scan([i1, i2], [u1, u2], [s1, s2], name="sc")
    s = te.create_schedule(r1.op)
    a = rand(m, n)
    _, b1, b2 = run(s, [X, r1, r2], [a, np.zeros_like(a), np.zeros_like(a)])
    e1, e2 = np.zeros_like(a), np.zeros_like(a)
    e1[0], e2[0] = a[0], 2 * a[0]
    for t in range(1, m):
        e1[t] = e1[t - 1] + e2[t - 1]
        e2[t] = e2[t - 1] * 0.5 + a[t]
    np.testing.assert_allclose(b1, e1, rtol=1e-5)
    np.testing.assert_allclose(b2, e2, rtol=1e-5)
    ref = reference([r1, r2], {X: a})
    np.testing.assert_allclose(ref[0], e1, rtol=1e-5)
    np.testing.assert_allclose(ref[1], e2, rtol=1e-5)


def body_def(m=6, n=8, t0=1):
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="st")
    init = te.compute((t0, n), lambda t, i: X[t, i], name="ini")
    h = te.compute((m, n), lambda t, i: state[t - 1, i] * 0.5, name="h")
    g = te.compute((m, n), lambda t, i: h[t, i] + X[t, i], name="g")
    up = te.compute((m, n), lambda t, i: g[t, i] + h[t, (i + 1) % n], name="up")
    res = te.scan(init, up, state, name="res")
    out = te.compute((m, n), lambda t, i: res[t, i] + 1.0, name="out")
    return X, h, g, up, res, out


def body_expected(a, t0=1):
    e = np.zeros_like(a)
    e[:t0] = a[:t0]
    for t in range(t0, a.shape[0]):
        hh = e[t - 1] * 0.5
        e[t] = hh + a[t] + np.roll(hh, -1)
    return e + 1


def test_body_of_several_stages_split_parallel_compute_at():
    X, h, g, up, res, out = body_def()
    s = te.create_schedule(out.op)
    xo, xi = s[up].split(up.op.axis[1], factor=4)
    s[up].parallel(xo)
    s[up].vectorize(xi)
    s[g].compute_at(s[up], xo)
    a = rand(6, 8)
    _, o = run(s, [X, out], [a, np.zeros_like(a)], bounds_check=True)
    np.testing.assert_allclose(o, body_expected(a), rtol=1e-5)
    np.testing.assert_allclose(reference(out, {X: a}), body_expected(a), rtol=1e-5)
    f = schedule_to_primfunc(s, [X, out])
    # g lives one row and one tile at a time: realized inside the time loop
    g_realize = [r for r in nodes(f, BufferRealize) if r.buffer.name == "g"]
    assert [r.extent.value for r in g_realize[0].bounds] == [1, 4]


def test_body_stages_inlined():
    X, h, g, up, res, out = body_def(t0=2)
    s = te.create_schedule(out.op)
    s[g].compute_inline()
    s[h].compute_inline()
    a = rand(6, 8)
    _, o = run(s, [X, out], [a, np.zeros_like(a)], bounds_check=True)
    np.testing.assert_allclose(o, body_expected(a, 2), rtol=1e-5)
    f = schedule_to_primfunc(s, [X, out])
    assert {r.buffer.name for r in nodes(f, BufferRealize)} == {"res"}


def test_exact_bounds_build_the_same_scan():
    X, h, g, up, res, out = body_def()
    s = te.create_schedule(out.op)
    xo, xi = s[up].split(up.op.axis[1], factor=3)
    s[g].compute_at(s[up], xo)
    a = rand(6, 8)
    _, o = run(s, [X, out], [a, np.zeros_like(a)], exact_bounds=True, bounds_check=True)
    np.testing.assert_allclose(o, body_expected(a), rtol=1e-5)


def two_state_inline_def(m, n, second_reads_xx):
    x = te.compute((m, n), lambda i, j: tir.const(1, "float32"), name="x")
    st1, st2 = te.placeholder((m, n)), te.placeholder((m, n))
    init1 = te.compute((1, n), lambda _, i: x[0, i])
    init2 = te.compute((1, n), lambda _, i: x[0, i])
    if second_reads_xx:    # TVM's test_scan_inline2
        xx = te.compute((m, n), lambda t, i: st1[t - 1, i] + x[t, i], name="xx")
        x1 = te.compute((m, n), lambda t, i: xx[t, i] + 1, name="x1")
        x2 = te.compute((m, n), lambda t, i: xx[t, i] + st2[t - 1, 2], name="x2")
        inline = [xx, x1, x2]
    else:                  # TVM's test_scan_inline1
        x1 = te.compute((m, n), lambda t, i: st1[t - 1, i] + x[t, i], name="x1")
        x2 = te.compute((m, n), lambda t, i: st2[t - 1, i] + 1, name="x2")
        inline = [x1]
    u1 = te.compute((m, n), lambda t, i: x1[t, i], "u1")
    u2 = te.compute((m, n), lambda t, i: x2[t, i], "u2")
    r1, r2 = te.scan([init1, init2], [u1, u2], [st1, st2])
    return x, inline, r1, r2


@pytest.mark.parametrize("second_reads_xx", [False, True])
def test_tvm_scan_inline(second_reads_xx):
    m, n = 5, 4
    x, inline, r1, r2 = two_state_inline_def(m, n, second_reads_xx)
    s = te.create_schedule(r1.op)
    for t in inline:
        s[t].compute_inline()
    _, b1, b2 = run(s, [x, r1, r2], [np.zeros((m, n), "float32")] * 1 +
                    [np.zeros((m, n), "float32"), np.zeros((m, n), "float32")])
    e1, e2 = np.ones((m, n), "float32"), np.ones((m, n), "float32")
    for t in range(1, m):
        if second_reads_xx:
            xx = e1[t - 1] + 1
            e1[t], e2[t] = xx + 1, xx + e2[t - 1, 2]
        else:
            e1[t], e2[t] = e1[t - 1] + 1, e2[t - 1] + 1
    np.testing.assert_allclose(b1, e1)
    np.testing.assert_allclose(b2, e2)
    ref = reference([r1, r2], {})
    np.testing.assert_allclose(ref[0], e1)
    np.testing.assert_allclose(ref[1], e2)


def test_scan_output_sliced_by_its_consumer():
    m, n = te.var("m"), te.var("n")
    X, state, init, update, res = cumsum_def(m, n)
    last = te.compute((3,), lambda i: res[m - 1, i + 1], name="last")
    s = te.create_schedule(last.op)
    a = rand(6, 9)
    _, o = run(s, [X, last], [a, np.zeros(3, "float32")], bounds_check=True)
    np.testing.assert_allclose(o, np.cumsum(a, axis=0)[-1, 1:4], rtol=1e-5)
    f = schedule_to_primfunc(s, [X, last])
    (r,) = nodes(f, BufferRealize)
    assert r.bounds[1].min.value == 1 and r.bounds[1].extent.value == 3


def test_scan_with_a_reduction_in_its_body():
    m, n = 5, 6
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    k = te.reduce_axis((0, n), name="k")
    tot = te.compute((m,), lambda t: te.sum(state[t - 1, k], axis=k), name="tot")
    update = te.compute((m, n), lambda t, i: X[t, i] + tot[t] * 0.1, name="update")
    res = te.scan(init, update, state)
    s = te.create_schedule(res.op)
    a = rand(m, n)
    _, b = run(s, [X, res], [a, np.zeros_like(a)])
    e = a.copy()
    for t in range(1, m):
        e[t] = a[t] + e[t - 1].sum() * 0.1
    np.testing.assert_allclose(b, e, rtol=1e-5)
    np.testing.assert_allclose(reference(res, {X: a}), e, rtol=1e-5)


@pytest.mark.slow
@given(m=st.integers(2, 7), n=st.integers(1, 9), t0=st.integers(1, 2),
       factor=st.integers(1, 5), how=st.sampled_from(["root", "at", "inline"]),
       par=st.booleans(), exact=st.booleans())
def test_scan_schedules_match_the_reference(m, n, t0, factor, how, par, exact):
    t0 = min(t0, m)
    X, h, g, up, res, out = body_def(m, n, t0)
    s = te.create_schedule(out.op)
    xo, xi = s[up].split(up.op.axis[1], factor=factor)
    if par:
        s[up].parallel(xo)
    if how == "at":
        s[g].compute_at(s[up], xo)
        s[h].compute_at(s[up], xo)
    elif how == "inline":
        s[g].compute_inline()
    a = rand(m, n)
    _, o = run(s, [X, out], [a, np.zeros_like(a)], exact_bounds=exact, bounds_check=True)
    np.testing.assert_allclose(o, reference(out, {X: a}), rtol=1e-5)
    np.testing.assert_allclose(o, body_expected(a, t0), rtol=1e-5)


def test_scan_errors():
    m, n = 4, 3
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i], name="update")
    with pytest.raises(TepadError, match=r"scan s, state 0 \(placeholder\): the state has "
                       r"shape \[4, 4\] but update update has \[4, 3\]"):
        te.scan(init, update, te.placeholder((m, n + 1)), name="s")
    with pytest.raises(TepadError, match="must have one dtype"):
        te.scan(init, update, te.placeholder((m, n), "float64"), name="s")
    with pytest.raises(TepadError, match="the state must be a te.placeholder"):
        te.scan(init, update, update, name="s")
    with pytest.raises(TepadError, match="same length"):
        te.scan([init, init], [update], [state], name="s")
    with pytest.raises(TepadError, match="init has 5 time steps, more than update's 4"):
        te.scan(te.compute((5, n), lambda t, i: X[0, i]), update, state, name="s")
    res = te.scan(init, update, state, name="s")
    s = te.create_schedule(res.op)
    with pytest.raises(TepadError, match="update of scan s and cannot be inlined"):
        s[update].compute_inline()
    with pytest.raises(TepadError, match="needs a compute stage"):
        s[res].split(res.op.scan_axis, factor=2)


def test_scan_read_only_in_an_untaken_branch_outside_its_shape():
    # fuzz (scan_percent=50, seed "scan:c", case 153): a consumer asks for rows and columns
    # before the state's start (in a branch never taken): the scan's region is clipped to its
    # shape instead of getting a negative extent
    X = te.placeholder((3, 3), name="X")
    st = te.placeholder((3, 3), name="st")
    init = te.compute((1, 3), lambda t, j: X[t, j], name="init")
    up = te.compute((3, 3), lambda t, j: tir.max(st[t - 1, j], X[t, j]), name="up")
    res = te.scan(init, up, st, name="res")
    out = te.compute((1, 3), lambda i, j: te.if_then_else(
        tir.all(i >= 2, j >= 2), res[i - 2, j - 2], tir.const(0.0, "float32")), name="out")
    s = te.create_schedule(out.op)
    a = rand(3, 3)
    _, o = run(s, [X, out], [a, np.ones((1, 3), "float32")], bounds_check=True)
    np.testing.assert_array_equal(o, np.zeros((1, 3), "float32"))


def test_one_and_three_dimensional_states():
    m = 7
    X = te.placeholder((m,), name="X")
    st1 = te.placeholder((m,), name="st")
    ini = te.compute((1,), lambda t: X[0], name="ini")
    up = te.compute((m,), lambda t: st1[t - 1] * 0.5 + X[t], name="up")
    r = te.scan(ini, up, st1)
    assert r.op.spatial_axis_ == []
    a = rand(m)
    _, b = run(te.create_schedule(r.op), [X, r], [a, np.zeros_like(a)])
    e = a.copy()
    for t in range(1, m):
        e[t] = e[t - 1] * 0.5 + a[t]
    np.testing.assert_allclose(b, e, rtol=1e-5)

    X3 = te.placeholder((5, 4, 6), name="X3")
    st3 = te.placeholder((5, 4, 6), name="st3")
    ini3 = te.compute((1, 4, 6), lambda t, i, j: X3[0, i, j], name="ini3")
    up3 = te.compute((5, 4, 6), lambda t, i, j: st3[t - 1, j % 4, i % 4] + X3[t, i, j],
                     name="up3")
    r3 = te.scan(ini3, up3, st3)
    s = te.create_schedule(r3.op)
    fz = s[up3].fuse(up3.op.axis[1], up3.op.axis[2])
    o, _ = s[up3].split(fz, factor=5)
    s[up3].parallel(o)
    a3 = rand(5, 4, 6)
    _, b3 = run(s, [X3, r3], [a3, np.zeros_like(a3)], bounds_check=True)
    e3 = a3.copy()
    for t in range(1, 5):
        for i in range(4):
            for j in range(6):
                e3[t, i, j] = e3[t - 1, j % 4, i % 4] + a3[t, i, j]
    np.testing.assert_allclose(b3, e3, rtol=1e-5)
    np.testing.assert_allclose(reference(r3, {X3: a3}), e3, rtol=1e-5)
