"""create_schedule groups each scan's body (TVM's Schedule constructor): one GroupStage per
scan, attached to it with ScanUpdate, holding every stage of the body; stages a dataflow
rewrite adds to the body join it; lowering is unchanged."""
import numpy as np

import tepad
from tepad import te
from tepad.schedule.stage import AttachType


def two_stage_scan(m=6, n=8):
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    mid = te.compute((m, n), lambda t, i: state[t - 1, i] * 0.5, name="mid")
    update = te.compute((m, n), lambda t, i: mid[t, i] + X[t, i], name="update")
    return X, mid, update, te.scan(init, update, state, name="scan")


def test_create_schedule_makes_the_scan_group():
    X, mid, update, res = two_stage_scan()
    s = te.create_schedule(res.op)
    assert len(s.groups) == 1
    g = s.groups[0]
    assert g.attach_type == AttachType.ScanUpdate and g.attach_stage is s[res]
    assert s[update].group is g and s[mid].group is g
    assert s[X].group is None and s[res].group is None
    assert g.num_child_stages == 2
    assert [st.name for st in g.members()] == ["mid", "update"]


def test_cache_read_in_the_body_joins_the_group_and_builds():
    X, mid, update, res = two_stage_scan()
    s = te.create_schedule(res.op)
    ML = s.cache_read(mid, "local", [update])
    s[ML].compute_at(s[update], update.op.axis[1])
    XL = s.cache_read(X, "local", [update])          # X is outside the body (as in TVM,
    s[XL].compute_at(s[update], update.op.axis[1])   # a cache stage takes its producer's group)
    g = s.groups[0]
    assert s[ML].group is g and g.num_child_stages == 3
    assert s[XL].group is None
    sc = s.copy()
    assert sc.groups[0] is not g and sc[update].group is sc.groups[0]
    assert sc.groups[0].attach_stage is sc[res]
    f = tepad.build(s, [X, res])
    x = np.random.RandomState(0).rand(6, 8).astype("float32")
    out = np.zeros_like(x)
    f(x, out)
    ref = np.zeros_like(x)
    ref[0] = x[0]
    for t in range(1, 6):
        ref[t] = ref[t - 1] * 0.5 + x[t]
    np.testing.assert_allclose(out, ref, rtol=1e-6)
