"""te.scan as a definition and in the schedule graph: ScanOp's fields, ScanGetBody,
ScanFixPointAnalysis, read graph / post-DFS order, attach paths of the scan's body
(TVM's test_tensor_scan / test_scan_multi_out / test_scan / test_scan_fix_point)."""
import pytest

from tepad import TepadError, te, tir
from tepad.schedule import AttachType


def cumsum(m, n):
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i], name="update")
    return X, state, init, update, te.scan(init, update, state, name="cumsum")


def test_scan_op_fields():
    m, n = te.size_var("m"), te.size_var("n")
    X, state, init, update, res = cumsum(m, n)
    op = res.op
    assert isinstance(op, te.ScanOp)
    assert tuple(res.shape) == (m, n) and res.dtype == "float32"
    assert op.num_outputs == 1 and res.value_index == 0
    assert op.init == [init] and op.update == [update] and op.state_placeholder == [state]
    assert op.input_tensors == [init, update]
    # time runs from init's extent (1) over the remaining m - 1 steps
    assert op.scan_axis.dom.min.value == 1
    assert str(op.scan_axis.dom.extent) == str(m - 1)
    assert len(op.spatial_axis_) == 1
    assert op.spatial_axis_[0].dom.extent is n
    assert op.root_iter_vars == [op.scan_axis] + op.spatial_axis_


def test_multi_state_scan_returns_one_tensor_per_state():
    m, n = te.size_var("m"), te.size_var("n")
    x1, x2 = te.placeholder((m, n)), te.placeholder((m, n))
    s1, s2 = te.placeholder((m, n)), te.placeholder((m, n))
    i1 = te.compute((1, n), lambda _, i: x1[0, i])
    i2 = te.compute((1, n), lambda _, i: x2[0, i])
    u1 = te.compute((m, n), lambda t, i: s1[t - 1, i] + s2[t - 1, i] + x1[t, i])
    u2 = te.compute((m, n), lambda t, i: x2[t, i] + s2[t - 1, i])
    r0, r1 = te.scan([i1, i2], [u1, u2], [s1, s2])
    assert r0.op is r1.op and (r0.value_index, r1.value_index) == (0, 1)
    assert len(r0.op.spatial_axis_) == 2
    assert r0.op.spatial_axes_of(1) == [r0.op.spatial_axis_[1]]


def test_scan_get_body_is_the_path_from_the_state_to_the_update():
    m, n = te.var("m"), te.var("n")
    x = te.compute((m, n), lambda i, j: tir.const(1, "float32"), name="x")
    state = te.placeholder((m, n))
    init = te.compute((1, n), lambda _, i: x[0, i], name="s_init")
    x_trans = te.compute((m, n), lambda i, j: x[i, j] + 1, name="x_trans")
    up1 = te.compute((m, n), lambda t, i: state[t - 1, i] + 1, name="up1")
    update = te.compute((m, n), lambda t, i: up1[t, i] + x_trans[t, i], name="update")
    res = te.scan(init, update, state)
    body = te.schedule.ScanGetBody(res.op)
    # producers first; x_trans does not depend on the state, so it is outside the body
    assert body == [up1.op, update.op]

    s = te.create_schedule(res.op)
    for op in (up1.op, update.op):
        assert s[op].attach_type == AttachType.ScanUpdate and s[op].attach_stage is s[res]
    assert s[x_trans].attach_type == AttachType.GroupRoot
    assert s[init].attach_type == AttachType.GroupRoot

    s[x_trans].compute_at(s[update], update.op.axis[0])
    paths = te.schedule.CreateAttachPath(s)
    assert tuple(paths[update.op]) == (res.op.scan_axis,)
    assert tuple(paths[x_trans.op]) == (update.op.axis[0], res.op.scan_axis)
    # compute_root puts a body stage back at the scan's time step
    s[up1].compute_at(s[update], update.op.axis[1])
    s[up1].compute_root()
    assert s[up1].attach_type == AttachType.ScanUpdate


def test_read_graph_and_post_dfs_order_reach_through_the_scan():
    m, n = te.var("m"), te.var("n")
    X, state, init, update, res = cumsum(m, n)
    out = te.compute((m, n), lambda t, i: res[t, i] * 2, name="out")
    g = te.schedule.CreateReadGraph([out.op])
    assert list(g[res.op]) == [init, update]
    assert list(g[update.op]) == [state, X]
    order = te.schedule.PostDFSOrder([out.op], g)
    pos = {op: k for k, op in enumerate(order)}
    assert pos[state.op] < pos[update.op] < pos[res.op] < pos[out.op]
    assert pos[init.op] < pos[res.op]


def _fix(res):
    f = te.schedule.ScanFixPointAnalysis(res.op)
    return [f[iv].value for iv in res.op.spatial_axis_]


@pytest.fixture
def three_d():
    m, n, l = te.var("m"), te.var("n"), te.var("l")
    x = te.compute((l, m, n), lambda *i: tir.const(1, "float32"), name="x")
    state = te.placeholder((l, m, n))
    init = te.compute((1, m, n), lambda _, i, j: x[0, i, j], name="s_init")
    return l, m, n, x, state, init


def test_fix_point_same_position(three_d):
    l, m, n, x, state, init = three_d
    up = te.compute((l, m, n), lambda t, i, j: x[t, j, i] + state[t - 1, i, j])
    assert _fix(te.scan(init, up, state)) == [1, 1]


def test_fix_point_transposed_state_read(three_d):
    l, m, n, x, state, init = three_d
    up = te.compute((l, m, n), lambda t, i, j: x[t, j, i] + state[t - 1, j, i])
    assert _fix(te.scan(init, up, state)) == [0, 0]


def test_fix_point_constant_index_breaks_only_its_axis(three_d):
    l, m, n, x, state, init = three_d
    h1 = te.compute((l, n, m), lambda t, j, i: state[t - 1, i, j], name="h1")
    h2 = te.compute((l, m, n), lambda t, i, j: state[t - 1, i, 10] * 2, name="h2")
    up = te.compute((l, m, n), lambda t, i, j: h1[t, j, i] + h2[t, i, j])
    assert _fix(te.scan(init, up, state)) == [1, 0]


def test_fix_point_one_index_reaching_two_axes(three_d):
    l, m, n, x, state, init = three_d
    h1 = te.compute((l, n, m), lambda t, j, i: state[t - 1, j, j], name="h1")
    h2 = te.compute((l, m, n), lambda t, i, j: state[t - 1, i, j] * 2, name="h2")
    up = te.compute((l, m, n), lambda t, i, j: h1[t, j, i] + h2[t, i, j])
    assert _fix(te.scan(init, up, state)) == [0, 0]


def test_fix_point_multi_output():
    m, n = te.var("m"), te.var("n")
    x1, s1, x2, s2 = (te.placeholder((m, n)) for _ in range(4))
    i1 = te.compute((1, n), lambda _, i: x1[0, i])
    i2 = te.compute((1, n), lambda _, i: x2[0, i])
    u1 = te.compute((m, n), lambda t, i: s1[t - 1, i] + x1[t, i])
    u2 = te.compute((m, n), lambda t, i: x2[t, i] + s2[t - 1, i])
    r0, r1 = te.scan([i1, i2], [u1, u2], [s1, s2])
    assert _fix(r0) == [1, 1]


def test_fix_point_cross_state_read_is_not_a_fix_point():
    m, n = te.var("m"), te.var("n")
    x, s1, s2 = (te.placeholder((m, n)) for _ in range(3))
    i1 = te.compute((1, n), lambda _, i: x[0, i])
    i2 = te.compute((1, n), lambda _, i: x[0, i])
    u1 = te.compute((m, n), lambda t, i: s1[t - 1, i] + s2[t - 1, i])
    u2 = te.compute((m, n), lambda t, i: s2[t - 1, (i + 1) % n])
    r0, _ = te.scan([i1, i2], [u1, u2], [s1, s2])
    # u2 shifts its state along i: neither state's i is a fix point (u1 reads s2)
    assert _fix(r0)[1] == 0


def test_scan_analyses_refuse_other_operations():
    A = te.placeholder((4,))
    with pytest.raises(TepadError, match="expects a te.scan"):
        te.schedule.ScanGetBody(A.op)
    with pytest.raises(TepadError, match="expects a te.scan"):
        te.schedule.ScanFixPointAnalysis(A)


def test_multi_state_scan_json_round_trip():
    import tepad
    m, n = te.size_var("m"), te.size_var("n")
    x1, s1, x2, s2 = (te.placeholder((m, n)) for _ in range(4))
    i1 = te.compute((1, n), lambda _, i: x1[0, i])
    i2 = te.compute((1, n), lambda _, i: x2[0, i])
    u1 = te.compute((m, n), lambda t, i: s1[t - 1, i] + s2[t - 1, i] + x1[t, i])
    u2 = te.compute((m, n), lambda t, i: x2[t, i] + s2[t - 1, i])
    r0, r1 = te.scan([i1, i2], [u1, u2], [s1, s2])
    op = tepad.ir.load_json(tepad.ir.save_json(r0.op))
    assert isinstance(op, te.ScanOp) and op is not r0.op and op.num_outputs == 2
    assert str(op.update[0].op.body) == str(u1.op.body)
    assert op.state_placeholder[1] in op.update[1].op.input_tensors
    assert op.spatial_axes_of(1) == [op.spatial_axis_[1]]
