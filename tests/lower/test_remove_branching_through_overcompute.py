"""remove_branching_through_overcompute alone: drop guards whose skipped work is a no-op."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.layout import to_physical
from tepad.lower.passes import remove_branching_through_overcompute as rbto
from tepad.tir import stmt as S

from lower_helpers import func, loops, nodes, rand

MAP = lambda i, j: [i, j // 4, j % 4]       # noqa: E731


def row_sum(pad):
    """RFC 0077 row summation: B[i] = sum_k A[i, k], A (16, 14) stored (16, 4, 4)."""
    A = te.placeholder((16, 14), "float32", name="A")
    k = te.reduce_axis((0, 14), "k")
    B = te.compute((16,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].split(k, factor=4)
    s[A].transform_layout(MAP, pad_value=pad)
    return tepad.lower(s, [A, B], flatten=False)["main"]


def test_row_summation_with_zero_padding_loses_its_guard():
    f = row_sum(0.0)
    assert len(nodes(f, S.IfThenElse)) == 1
    g = rbto(f)
    assert not nodes(g, S.IfThenElse)
    assert "B[i_1] = B[i_1] + A[i_1, k_outer, k_inner]" in g.script()
    a = rand((16, 14))
    b = np.zeros(16, "float32")
    tepad.build(g)(to_physical(a, MAP, 0.0), b)
    np.testing.assert_allclose(b, a.sum(1), rtol=1e-5, atol=1e-5)


def test_nonzero_or_no_pad_value_keeps_the_guard():
    for pad in (1.0, None):
        g = rbto(row_sum(pad))
        assert len(nodes(g, S.IfThenElse)) == 1, pad


def test_equal_branches_under_the_negation_collapse():
    """``if i < 4: A[i] = B[i] else: A[i] = B[min(i, 7)]``: for i >= 4 both are the same."""
    A = tir.decl_buffer((8,), "float32", "A")
    B = tir.decl_buffer((8,), "float32", "B")
    i = tir.Var("i")
    body = loops([(i, 8)], tir.IfThenElse(i < 4, tir.BufferStore(A, B[i], [i]),
                                          tir.BufferStore(A, B[tir.min(i, 7)], [i])))
    g = rbto(func([A, B], body))
    assert not nodes(g, S.IfThenElse)
    a = np.zeros(8, "float32")
    b = rand((8,))
    tepad.build(g)(a, b)
    np.testing.assert_array_equal(a, b)


def test_guard_protecting_an_out_of_bounds_access_is_kept():
    """Under ``not (i < 8)`` the write-back ``A[i] = A[i]`` is a no-op, but A has 8 cells."""
    A = tir.decl_buffer((8,), "float32", "A")
    i = tir.Var("i")
    f = func([A], loops([(i, 10)], tir.IfThenElse(i < 8, tir.BufferStore(A, A[i], [i]))))
    g = rbto(f)
    assert len(nodes(g, S.IfThenElse)) == 1


def test_nothing_to_do_returns_same_object():
    A = tir.decl_buffer((8,), "float32", "A")
    i = tir.Var("i")
    f = func([A], loops([(i, 8)], tir.BufferStore(A, A[i] * 2.0, [i])))
    assert rbto(f) is f


# --- reductions over padded axes ----------------------------------------
from tepad.layout import from_physical                               # noqa: E402
from tepad.lower.passes import remove_assume, remove_store_undef, simplify   # noqa: E402
from tepad.tir.functor import collect_vars                            # noqa: E402

A_MAP = lambda i, k: [i // 4, i % 4, k // 8, k % 8]       # noqa: E731
B_MAP = lambda i: [i // 4, i % 4]                          # noqa: E731


def multi_transform_reduction(red, dtype, a_pad, b_pad="absent"):
    """RFC 0077 "multiple transformations": A (14, 60) -> (4, 4, 8, 8), B[i] = red_k A[i, k]
    with k split by 8; B optionally stored as (4, 4)."""
    A = te.placeholder((14, 60), dtype, name="A")
    k = te.reduce_axis((0, 60), name="k")
    B = te.compute((14,), lambda i: red(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(A_MAP, pad_value=a_pad)
    if b_pad != "absent":
        s[B].transform_layout(B_MAP, pad_value=b_pad)
    ko, ki = s[B].split(k, factor=8)
    return tepad.lower(s, [A, B], flatten=False)["main"], (ko.var, ki.var)


def opt(f):
    return remove_store_undef(remove_assume(rbto(simplify(f))))


def guards_on(f, vars_):
    return [c for c in nodes(f, S.IfThenElse) if collect_vars(c.condition) & set(vars_)]


def run_reduction(g, a_phys, dtype, b_layout):
    if b_layout:
        b = np.zeros((4, 4), dtype)
        tepad.build(g)(a_phys, b)
        return from_physical(b, B_MAP, (14,))
    b = np.zeros(14, dtype)
    tepad.build(g)(a_phys, b)
    return b


@pytest.mark.parametrize("b_pad", ["absent", None, 0.0, "undef"])
def test_sum_over_padded_axes_loses_the_reduce_axis_guard(b_pad):
    pad = (lambda io, ii: tir.undef("float32")) if b_pad == "undef" else b_pad
    f, kvars = multi_transform_reduction(te.sum, "float32", 0.0, pad)
    assert guards_on(f, kvars)                       # the update runs under k < 60
    g = opt(f)
    assert not guards_on(g, kvars)
    a = rand((14, 60))
    got = run_reduction(g, to_physical(a, A_MAP, 0.0), "float32", b_pad != "absent")
    np.testing.assert_allclose(got, a.sum(axis=1), rtol=1e-5, atol=1e-4)


def test_rfc_multiple_transformations_become_branch_free_with_undef_output_padding():
    f, kvars = multi_transform_reduction(te.sum, "int32", 0,
                                         lambda io, ii: tir.undef("int32"))
    g = opt(f)
    assert not nodes(g, S.IfThenElse)
    a = rand((14, 60), "int32")
    got = run_reduction(g, to_physical(a, A_MAP, 0), "int32", True)
    np.testing.assert_array_equal(got, a.sum(axis=1))


@pytest.mark.parametrize("dtype,red,pad", [
    ("float32", te.max, "min_value"), ("float32", te.max, -np.inf),
    ("int32", te.max, "min_value"), ("int32", te.min, "max_value"),
    ("float32", te.min, "max_value")])
def test_max_and_min_over_identity_padding_lose_the_reduce_axis_guard(dtype, red, pad):
    if pad == "min_value":
        pad = te.min_value(dtype)
    elif pad == "max_value":
        pad = te.max_value(dtype)
    f, kvars = multi_transform_reduction(red, dtype, pad)
    assert guards_on(f, kvars)
    g = opt(f)
    assert not guards_on(g, kvars)
    a = rand((14, 60), dtype)
    pad_np = float(pad.value) if hasattr(pad, "value") else pad
    got = run_reduction(g, to_physical(a, A_MAP, pad_np), dtype, False)
    want = a.max(axis=1) if red is te.max else a.min(axis=1)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("red,pad", [(te.sum, 1.0), (te.sum, None), (te.max, 0.0),
                                     (te.min, te.min_value("float32"))])
def test_padding_that_is_not_the_identity_keeps_the_reduce_axis_guard(red, pad):
    f, kvars = multi_transform_reduction(red, "float32", pad)
    g = opt(f)
    assert guards_on(g, kvars)
    a = rand((14, 60))
    got = run_reduction(g, to_physical(a, A_MAP, 0.0 if pad is None else
                                       float(getattr(pad, "value", pad))), "float32", False)
    want = {te.sum: a.sum, te.max: a.max, te.min: a.min}[red](axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_max_from_a_user_init_below_the_finite_minimum_keeps_its_guard():
    """``init=-inf`` can make B hold -inf, where ``max(B, min_value)`` is not B."""
    A = te.placeholder((14, 60), "float32", name="A")
    k = te.reduce_axis((0, 60), name="k")
    B = te.compute((14,), lambda i: te.max(A[i, k], axis=k, init=-np.inf), name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(A_MAP, pad_value=te.min_value("float32"))
    ko, ki = s[B].split(k, factor=8)
    g = opt(tepad.lower(s, [A, B], flatten=False)["main"])
    assert guards_on(g, (ko.var, ki.var))
