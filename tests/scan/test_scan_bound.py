"""InferBound for te.scan (TVM's bound.cc scan rules; test_bound_scan, test_schedule_scan)."""
from tepad import te, tir
from tepad.bound import infer_bound
from tepad.tir.expr import IntImm


def cumsum(m, n, X=None):
    X = X if X is not None else te.compute((m, n), lambda i, j: tir.const(1, "float32"),
                                           name="x")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i], name="update")
    return X, state, init, update, te.scan(init, update, state, name="scan")


def same(a, b):
    return str(a) == str(b)


def test_output_scan_runs_from_init_extent_to_the_end():
    m, n = te.var("m"), te.var("n")
    X, state, init, update, res = cumsum(m, n)
    s = te.create_schedule(res.op).normalize()
    b = te.schedule.InferBound(s)
    sa = res.op.scan_axis
    assert b[sa].min.value == 1 and same(b[sa].extent, m - 1)
    # the time loop is the rebased leaf: from 0
    leaf = s[res].leaf_iter_vars[0]
    assert leaf is not sa and b[leaf].min.value == 0


def test_update_is_bounded_at_the_current_step_init_at_its_rows():
    m, n = 7, te.var("n")
    X, state, init, update, res = cumsum(m, n)
    s = te.create_schedule(res.op).normalize()
    b = te.schedule.InferBound(s)
    leaf = s[res].leaf_iter_vars[0]
    t, i = update.op.axis
    # one row: the scan's current step (leaf + 1), every column
    assert b[t].extent.value == 1 and same(b[t].min, leaf.var + 1)
    assert b[i].min.value == 0 and b[i].extent is n
    assert b[init.op.axis[0]].min.value == 0 and b[init.op.axis[0]].extent.value == 1
    # x is read at every step: all rows from 1 (update) and row 0 (init)
    assert b[X.op.axis[0]].min.value == 0 and b[X.op.axis[0]].extent.value == m


def test_cache_read_computed_at_a_split_update_axis():
    # TVM's test_bound_scan
    m, n = te.var("m"), te.var("n")
    X, state, init, update, res = cumsum(m, n)
    s = te.create_schedule(res.op)
    XX = s.cache_read(X, "local", update)
    xo, xi = s[update].split(update.op.axis[1], factor=4)
    s[XX].compute_at(s[update], xo)
    s = s.normalize()
    b = te.schedule.InferBound(s)
    assert b[XX.op.axis[1]].extent.value == 4
    assert b[XX.op.axis[0]].extent.value == 1
    te.schedule.ScheduleOps(s, b)


def test_body_stage_read_one_step_back_is_bounded_there():
    m, n = 8, 5
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((2, n), lambda t, i: X[t, i], name="init")
    h = te.compute((m, n), lambda t, i: state[t - 2, i] * 2, name="h")
    update = te.compute((m, n), lambda t, i: h[t, i] + h[t - 1, i], name="update")
    res = te.scan(init, update, state)
    s = te.create_schedule(res.op).normalize()
    b = te.schedule.InferBound(s)
    leaf = s[res].leaf_iter_vars[0]
    assert b[res.op.scan_axis].min.value == 2 and b[res.op.scan_axis].extent.value == 6
    # h rows t - 1 and t of step t = leaf + 2
    assert b[h.op.axis[0]].extent.value == 2 and same(b[h.op.axis[0]].min, leaf.var + 1)


def test_consumer_of_a_fix_point_scan_slices_its_spatial_axis():
    m, n = te.var("m"), te.var("n")
    X = te.placeholder((m, n), name="X")
    X_, state, init, update, res = cumsum(m, n, X)
    last = te.compute((3,), lambda i: res[m - 1, i + 1], name="last")
    s = te.create_schedule(last.op).normalize()
    b = infer_bound(s)
    sp = res.op.spatial_axis_[0]
    assert b[sp].min.value == 1 and b[sp].extent.value == 3
    # time: every step up to the last row
    assert same(b[res.op.scan_axis].extent, m - 1)
    # the update computes the same columns the state holds
    i = update.op.axis[1]
    assert b[i].min.value == 1 and b[i].extent.value == 3


def test_non_fix_point_axis_is_kept_whole():
    m, n = te.var("m"), te.var("n")
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, (i + 1) % n] + X[t, i], name="up")
    res = te.scan(init, update, state)
    last = te.compute((3,), lambda i: res[m - 1, i], name="last")
    s = te.create_schedule(last.op).normalize()
    b = infer_bound(s)
    sp = res.op.spatial_axis_[0]
    assert b[sp].min.value == 0 and b[sp].extent is n


def test_exact_mode_bounds_a_scan_as_interval_mode_does():
    m, n = te.var("m"), te.var("n")
    X, state, init, update, res = cumsum(m, n)
    out = te.compute((m, n), lambda t, i: res[t, i] + 1, name="out")
    s = te.create_schedule(out.op)
    xo, xi = s[update].split(update.op.axis[1], factor=4)
    s = s.normalize()
    a, e = infer_bound(s), infer_bound(s, exact=True)
    assert set(a) == set(e)
    for iv in a:
        assert same(a[iv].min, e[iv].min) and same(a[iv].extent, e[iv].extent), iv
    assert isinstance(e[xi].extent, IntImm) and e[xi].extent.value == 4


def test_explain_refuses_a_scan_naming_it():
    import pytest
    from tepad import TepadError
    from tepad.bound import explain
    X, state, init, update, res = cumsum(5, 4)
    with pytest.raises(TepadError, match="explain: the schedule has a te.scan"):
        explain(te.create_schedule(res.op))
