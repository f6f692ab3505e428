"""What a scan refuses, at the call where the mistake is made: reads of the scan's own tensors
from outside it, an init/update as an output, inlining an init/update, layouts on the stages
that share the state buffer; and a dataflow rewrite inside the body keeps it in the body."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te
from tepad.schedule import AttachType


def cumsum(m=5, n=4):
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    h = te.compute((m, n), lambda t, i: state[t - 1, i] * 2, name="h")
    update = te.compute((m, n), lambda t, i: h[t, i] + X[t, i], name="update")
    return X, state, init, h, update, te.scan(init, update, state, name="sc")


@pytest.mark.parametrize("which, what", [("update", "its update"), ("h", "a stage of its body"),
                                         ("init", "its init"),
                                         ("state", "its state placeholder")])
def test_reading_the_scans_own_tensors_from_outside_is_refused(which, what):
    X, state, init, h, update, res = cumsum()
    t = {"update": update, "h": h, "init": init, "state": state}[which]
    out = te.compute((5, 4), lambda i, j: res[i, j] + t[0, j], name="out")
    with pytest.raises(TepadError, match=f"stage out reads .*{what} of scan sc, from outside "
                                         "the scan.*read the scan's output sc instead"):
        te.create_schedule(out.op)


def test_update_as_an_output_is_refused():
    X, state, init, h, update, res = cumsum()
    with pytest.raises(TepadError, match="update is an output but is stored in the state"):
        te.create_schedule([res.op, update.op])


def test_layouts_on_scan_stages_are_refused():
    X, state, init, h, update, res = cumsum()
    s = te.create_schedule(res.op)
    for t in (res, update, h, init, state):
        with pytest.raises(TepadError, match="transform_layout of a te.scan"):
            s[t].transform_layout(lambda i, j: [j, i])


def test_cache_write_of_the_update_stays_in_the_body():
    X, state, init, h, update, res = cumsum()
    s = te.create_schedule(res.op)
    UL = s.cache_write(update, "local")
    assert s[UL].attach_type == AttachType.ScanUpdate and s[UL].attach_stage is s[res]
    HS = s.cache_read(state, "local", [h])
    assert s[HS].attach_type == AttachType.ScanUpdate
    a = np.random.rand(5, 4).astype("float32")
    b = np.zeros_like(a)
    tepad.build(s, [X, res], bounds_check=True)(a, b)
    e = a.copy()
    for t in range(1, 5):
        e[t] = 2 * e[t - 1] + a[t]
    np.testing.assert_allclose(b, e, rtol=1e-5)


def test_nested_scan_is_refused():
    X = te.placeholder((4, 3), name="X")
    st, st2 = te.placeholder((4, 3), name="st"), te.placeholder((4, 3), name="st2")
    inner_up = te.compute((4, 3), lambda t, i: st2[t - 1, i] + st[t - 1, i], name="iu")
    inner = te.scan(te.compute((1, 3), lambda t, i: st[0, i], name="ii"), inner_up, st2,
                    name="inner")
    up = te.compute((4, 3), lambda t, i: inner[t, i] + X[t, i], name="up")
    outer = te.scan(te.compute((1, 3), lambda t, i: X[0, i], name="oi"), up, st, name="outer")
    with pytest.raises(TepadError, match="scan inner is in the body of scan outer.*nested scans "
                                         "are not supported"):
        te.create_schedule(outer.op)
