"""The one bound-check rule for a stage's relations (tepad.schedule.index_flow):
``needs_bound_check`` marks the parent of every split that does not provably divide it and
everything above; ``relation_bound_checks`` gives the guards the analyzer cannot prove. The
lowering (make_bound_check, and so tensorize, GPU threads, shifted tails), rfactor and
cache_write all use it."""
import numpy as np
import pytest

import tepad
from tepad import te
from tepad.arith import Analyzer
from tepad.bound.message_passing import pass_up_bound_check
from tepad.schedule.index_flow import (needs_bound_check, pass_down_domain, pass_up_index,
                                       relation_bound_checks)


def _stage(n, f1, f2, how="factor"):
    A = te.placeholder((n,), name="A")
    C = te.compute((n,), lambda i: A[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=f1)
    iio, iii = s[C].split(ii, **{how: f2})
    return s[C], C.op.axis[0], (io, ii, iio, iii)


def _flow(st, root):
    ana = Analyzer()
    dom = {root: root.dom}
    ana.bind(root.var, root.dom)
    pass_down_domain(st, dom, ana, "test")
    value = {iv: iv.var for iv in st.leaf_iter_vars}
    pass_up_index(st, dom, value, ana)
    return ana, dom, value


def _names(preds):
    return sorted(str(p).replace("_", ".") for p in preds)


def test_a_dividing_outer_split_and_an_inner_factor_past_its_piece():
    st, i, (io, ii, iio, iii) = _stage(8, 2, 3)      # i: 4 x 2; ii: 1 x 3 > 2
    ana, dom, value = _flow(st, i)
    need = needs_bound_check(st, dom, ana)
    assert need[ii] and need[i]                       # the inner piece, and above it
    assert not need[io] and not need[iio] and not need[iii]
    preds = _names(relation_bound_checks(st, dom, value, ana))
    assert any(p.endswith("< 2") and "i.inner.inner" in p for p in preds), preds
    assert any(p.endswith("< 8") for p in preds), preds


def test_everything_divides_no_guard():
    st, i, _ = _stage(12, 4, 2)
    ana, dom, value = _flow(st, i)
    assert not any(needs_bound_check(st, dom, ana).values())
    assert relation_bound_checks(st, dom, value, ana) == []


def test_only_the_root_split_leaves_a_tail():
    st, i, (io, ii, iio, iii) = _stage(10, 4, 2)      # ii: 2 x 2 divides; i: 3 x 4 > 10
    ana, dom, value = _flow(st, i)
    need = needs_bound_check(st, dom, ana)
    assert need[i] and not need[ii]
    preds = _names(relation_bound_checks(st, dom, value, ana))
    assert len(preds) == 1 and preds[0].endswith("< 10"), preds


def test_skip_and_the_bound_pass_share_the_rule():
    st, i, (io, ii, iio, iii) = _stage(10, 4, 3, "nparts")
    ana, dom, value = _flow(st, i)
    assert pass_up_bound_check(st, dom, ana) == needs_bound_check(st, dom, ana)
    assert relation_bound_checks(st, dom, value, ana, skip={i, ii}) == []


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("f2,which,how", [(2, "inner", "factor"), (5, "inner", "factor"),
                                          (3, "outer", "nparts"), (5, "inner", "nparts")])
def test_shifted_tail_with_a_nested_split_of_a_piece(exact, f2, which, how):
    """A ``tail="shift"`` split needs no guard of its own, but a non-dividing split of one of
    its pieces does (and the shifted parent above it)."""
    A = te.placeholder((10,), "int32", name="A")
    B = te.compute((10,), lambda i: A[i] * 2, name="B")
    C = te.compute((10,), lambda i: B[i] + 1, name="C")
    s = te.create_schedule(C.op)
    io, ii = s[B].split(B.op.axis[0], factor=4, tail="shift")
    s[B].split(ii if which == "inner" else io, **{how: f2})
    co, ci = s[C].split(C.op.axis[0], factor=3, tail="shift")
    s[C].split(ci, factor=f2)
    f = tepad.build(tepad.lower(s, [A, C], exact_bounds=exact), bounds_check=True)
    a = np.arange(10, dtype="int32")
    c = np.zeros(10, "int32")
    f(a, c)
    np.testing.assert_array_equal(c, a * 2 + 1)
