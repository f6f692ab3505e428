"""Schedule.create_group: a sub-graph attached as one; nested groups; InferBound and
ScheduleOps see the group's attachment on its member stages (after normalize)."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te
from tepad.schedule import AttachType, GroupStage


def chain3(m=6, n=10):
    A = te.placeholder((m, n), name="A")
    x = te.compute((m, n), lambda i, j: A[i, j] * 2.0, name="x")
    x1 = te.compute((m, n), lambda i, j: x[i, j] + 1.0, name="x1")
    x2 = te.compute((m, n), lambda i, j: x1[i, j] + 2.0, name="x2")
    return A, x, x1, x2


def check(s, A, out, ref):
    a = np.random.rand(*[int(d) for d in A.shape]).astype("float32")
    o = np.empty_like(a)
    tepad.build(s, [A, out])(a, o)
    np.testing.assert_allclose(o, ref(a), rtol=1e-6)


def test_group_membership_and_subgraph():
    A, x, x1, x2 = chain3()
    s = te.create_schedule(x2.op)
    g = s.create_group(outputs=x1, inputs=x, include_inputs=True)
    assert isinstance(g, GroupStage) and g in s.groups
    assert s[x1].group is g and s[x].group is g and s[x2].group is None
    assert g.num_child_stages == 2
    s2 = te.create_schedule(x2.op)
    g2 = s2.create_group(outputs=x1, inputs=x)            # inputs excluded by default
    assert s2[x1].group is g2 and s2[x].group is None
    g3 = s2.create_group(outputs=x2, inputs=A)            # A reaches x2 through x, x1
    assert s2[x].group is g3 and s2[x2].group is g3 and s2[A].group is None
    assert g2.group is g3 and s2[x1].group is g2           # the smaller group nests inside


def test_group_compute_at_bounds():
    # TVM's test_bound_group_schedule
    m, n = te.var("m"), te.var("n")
    x = te.compute((m, n), lambda i, j: tepad.tir.const(1, "float32"), name="x")
    x1 = te.compute(x.shape, lambda *i: x(*i) + 1, name="x1")
    x2 = te.compute(x.shape, lambda *i: x1(*i) + 2, name="x2")
    s = te.create_schedule(x2.op)
    g = s.create_group(outputs=x1, inputs=x, include_inputs=True)
    g.compute_at(s[x2], x2.op.axis[0])
    s = s.normalize()
    bounds = te.schedule.InferBound(s)
    assert bounds[x.op.axis[0]].extent.value == 1 and bounds[x.op.axis[1]].extent is n
    assert bounds[x1.op.axis[0]].extent.value == 1


def test_nested_groups_bounds_and_numerics():
    # TVM's test_bound_nest_group, then built and run
    A, x, x1, x2 = chain3()
    s = te.create_schedule(x2.op)
    g1 = s.create_group(outputs=x, inputs=x, include_inputs=True)
    g2 = s.create_group(outputs=x1, inputs=x, include_inputs=True)
    assert s[x].group is g1 and s[x1].group is g2 and g1.group is g2
    g2.compute_at(s[x2], x2.op.axis[0])
    g1.compute_at(s[x1], s[x1].op.axis[1])
    check(s, A, x2, lambda a: a * 2 + 3)
    bounds = te.schedule.InferBound(s.copy().normalize())
    assert bounds[x.op.axis[0]].extent.value == 1 and bounds[x.op.axis[1]].extent.value == 1
    assert bounds[x1.op.axis[0]].extent.value == 1 and bounds[x1.op.axis[1]].extent.value == 10
    # the user's schedule is unchanged by lowering: members still follow their group
    assert s[x].attach_type == AttachType.GroupRoot


def test_group_at_a_split_loop_and_compute_root_again():
    A, x, x1, x2 = chain3(6, 10)
    s = te.create_schedule(x2.op)
    g = s.create_group(outputs=x1, inputs=A)
    xo, xi = s[x2].split(x2.op.axis[1], factor=4)
    g.compute_at(s[x2], xo)
    check(s, A, x2, lambda a: a * 2 + 3)
    g.compute_root()
    check(s, A, x2, lambda a: a * 2 + 3)


def test_member_with_its_own_compute_at_keeps_it():
    A, x, x1, x2 = chain3()
    s = te.create_schedule(x2.op)
    g = s.create_group(outputs=x1, inputs=A)
    s[x].compute_at(s[x1], x1.op.axis[1])
    g.compute_at(s[x2], x2.op.axis[0])
    s2 = s.copy().normalize()
    assert s2[x].attach_stage is s2[x1] and s2[x1].attach_stage is s2[x2]
    check(s, A, x2, lambda a: a * 2 + 3)


def test_member_attached_outside_the_new_group_goes_back_to_root():
    A, x, x1, x2 = chain3()
    s = te.create_schedule(x2.op)
    s[x].compute_at(s[x2], x2.op.axis[0])
    with pytest.warns(UserWarning, match="stage x was computed at x2"):
        s.create_group(outputs=x1, inputs=A)
    assert s[x].attach_type == AttachType.GroupRoot
    check(s, A, x2, lambda a: a * 2 + 3)


def test_group_fingerprint_follows_group_attachment():
    A, x, x1, x2 = chain3()
    s = te.create_schedule(x2.op)
    g = s.create_group(outputs=x1, inputs=A)
    before = s.fingerprint()
    g.compute_at(s[x2], x2.op.axis[0])
    assert s.fingerprint() != before


def test_group_errors():
    A, x, x1, x2 = chain3()
    s = te.create_schedule(x2.op)
    g = s.create_group(outputs=x1, inputs=A)
    with pytest.raises(TepadError, match="member of the group"):
        g.compute_at(s[x1], x1.op.axis[0])
    with pytest.raises(TepadError, match="not an axis of this stage"):
        g.compute_at(s[x2], x1.op.axis[0])
    with pytest.raises(TepadError, match="cannot be inlined"):
        g.compute_inline()
    with pytest.raises(TepadError, match="output x2"):
        s.create_group(outputs=x2, inputs=x1).compute_at(s[x1], x1.op.axis[0])
    with pytest.raises(TepadError, match="no operation lies between"):
        s.create_group(outputs=x, inputs=x2)
    s2 = te.create_schedule(x2.op)
    s2.create_group(outputs=x1, inputs=A)                  # {x, x1}
    with pytest.raises(TepadError, match="cut through"):
        s2.create_group(outputs=x2, inputs=x)              # {x1, x2}: half of that group
