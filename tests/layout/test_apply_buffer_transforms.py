"""apply_buffer_transforms on hand-built PrimFuncs (RFC 0039 / RFC 0077 semantics)."""
import numpy as np
import pytest

from tepad import tir
from tepad.errors import TepadError
from tepad.layout import to_physical, from_physical
from tepad.lower.passes.apply_buffer_transforms import apply_buffer_transforms
from tepad.arith.index_map import IndexMap
from tepad.tir.op import is_call

from .helpers import imap, func, loops, build, collect

SPLIT4 = lambda i: [i // 4, i % 4]  # noqa: E731


def double_func(pad_a=None, pad_b=None):
    A = tir.decl_buffer((14,), "float32", "A")
    B = tir.decl_buffer((14,), "float32", "B")
    i = tir.Var("i")
    body = tir.For(i, 0, 14, "serial", tir.BufferStore(B, A[i] * 2.0, [i]))
    return A, B, func([A, B], body, {A: [imap(SPLIT4, 1)], B: [imap(SPLIT4, 1)]},
                      {A: pad_a, B: pad_b})


def test_rfc_input_assume_and_output_padding():
    A, B, f = double_func(-1.0, -2.0)
    g = apply_buffer_transforms(f)
    newA, newB = g.buffer_map[A.data], g.buffer_map[B.data]
    assert [int(s) for s in newA.shape] == [4, 4] and newA.data is A.data
    assert [int(s) for s in newB.shape] == [4, 4]
    seq = g.body.seq
    assert len(seq) == 3
    # 1. assume nest over the whole transformed shape
    assumes = [e for e in collect(seq[0], tir.Evaluate) if is_call(e.value, "tir.assume")]
    assert len(assumes) == 1
    text = str(seq[0])
    assert "A[io, ii] == T.float32(-1.0)" in text and "io != 3 or ii < 2" in text
    # 2. compute uses transformed indices
    assert "B[i // 4, i % 4] = A[i // 4, i % 4]" in str(seq[1])
    # 3. padding written after the compute
    assert "if io_1 == 3 and ii_1 >= 2" in str(seq[2]).replace("io ==", "io_1 ==") or \
        "== 3 and" in str(seq[2])
    stores = collect(seq[2], tir.BufferStore)
    assert len(stores) == 1 and float(stores[0].value.value) == -2.0
    # attrs
    assert "layout_transform_map" not in g.attrs and "layout_pad_value" not in g.attrs
    info = g.attrs["arg_layouts"][B.data]
    assert [int(s) for s in info["logical_shape"]] == [14] and info["pad_value"] == -2.0
    assert apply_buffer_transforms(g) is g
    # run it
    mod = build(g)
    a = to_physical(np.arange(14, dtype="float32"), SPLIT4, -1.0)
    b = np.zeros((4, 4), "float32")
    mod(a, b)
    np.testing.assert_array_equal(from_physical(b, SPLIT4, (14,)), 2 * np.arange(14))
    np.testing.assert_array_equal(b[3, 2:], [-2, -2])


def test_pad_none_writes_nothing():
    A, B, f = double_func(None, None)
    g = apply_buffer_transforms(f)
    assert isinstance(g.body, tir.For)
    assert not collect(g.body, tir.IfThenElse)


def test_undef_pad_value():
    A, B, f = double_func(tir.undef("float32"), tir.undef("float32"))
    g = apply_buffer_transforms(f)
    undef_stores = [s for s in collect(g.body, tir.BufferStore) if is_call(s.value, "tir.undef")]
    assert len(undef_stores) == 1
    from tepad.lower.passes.remove_store_undef import remove_store_undef
    h = remove_store_undef(g)
    assert isinstance(h.body, tir.For)      # the padding nest disappeared with its store
    assert "undef" not in str(h)


def test_callable_pad_and_self_read():
    A = tir.decl_buffer((14,), "float32", "A")
    B = tir.decl_buffer((14,), "float32", "B")
    i = tir.Var("i")
    body = tir.For(i, 0, 14, "serial", tir.BufferStore(B, A[i] + 1.0, [i]))
    # padding wraps to the beginning of the array: B[0, (io*4 + ii - 14) % 4]
    f = func([A, B], body, {B: [imap(SPLIT4, 1)]},
             {B: lambda io, ii: B[0, (io * 4 + ii - 14) % 4]})
    g = apply_buffer_transforms(f)
    newB = g.buffer_map[B.data]
    loads = [x for x in collect(g.body, tir.BufferLoad) if x.buffer is newB]
    assert loads and all(len(x.indices) == 2 for x in loads)
    mod = build(g)
    a = np.arange(14, dtype="float32")
    b = np.zeros((4, 4), "float32")
    mod(a, b)
    np.testing.assert_array_equal(b.ravel()[:14], a + 1)
    np.testing.assert_array_equal(b[3, 2:], [1, 2])
    g2 = apply_buffer_transforms(func([A, B], body, {B: [imap(SPLIT4, 1)]},
                                      {B: lambda io, ii: io * 1.0}))
    assert "T.float32" in str(g2) or "float" in str(g2)


def test_pad_reading_other_buffer_rejected():
    A = tir.decl_buffer((14,), "float32", "A")
    B = tir.decl_buffer((14,), "float32", "B")
    i = tir.Var("i")
    body = tir.For(i, 0, 14, "serial", tir.BufferStore(B, A[i], [i]))
    f = func([A, B], body, {B: [imap(SPLIT4, 1)]}, {B: lambda io, ii: A[0]})
    with pytest.raises(TepadError, match="A"):
        apply_buffer_transforms(f)


def test_non_injective_rejected():
    A = tir.decl_buffer((4, 4), "float32", "A")
    B = tir.decl_buffer((4, 4), "float32", "B")
    i, j = tir.Var("i"), tir.Var("j")
    body = loops([(i, 4), (j, 4)], tir.BufferStore(B, A[i, j], [i, j]))
    f = func([A, B], body, {A: [imap(lambda i, j: [i + j], 2)]})
    with pytest.raises(TepadError, match="not injective"):
        apply_buffer_transforms(f)


def test_internal_cache_padding_between_producer_and_consumer():
    """RFC 0077 'transform_layout' example: A_cache and B_cache with pad -1 and -2."""
    A = tir.decl_buffer((14,), "float32", "A")
    B = tir.decl_buffer((14,), "float32", "B")
    AC = tir.decl_buffer((14,), "float32", "A_cache")
    BC = tir.decl_buffer((14,), "float32", "B_cache")
    i0, i1, i2 = tir.Var("i"), tir.Var("i"), tir.Var("i")
    body = tir.BufferRealize(AC, [tir.Range(0, 14)], tir.const(True), tir.seq(
        tir.For(i0, 0, 14, "serial", tir.BufferStore(AC, A[i0], [i0])),
        tir.BufferRealize(BC, [tir.Range(0, 14)], tir.const(True), tir.seq(
            tir.For(i1, 0, 14, "serial", tir.BufferStore(BC, AC[i1] * 2.0, [i1])),
            tir.For(i2, 0, 14, "serial", tir.BufferStore(B, BC[i2], [i2]))))))
    f = func([A, B], body, {AC: [imap(SPLIT4, 1)], BC: [imap(SPLIT4, 1)]},
             {AC: -1.0, BC: -2.0})
    g = apply_buffer_transforms(f)
    outer = g.body
    assert isinstance(outer, tir.BufferRealize)
    assert [(int(r.min), int(r.extent)) for r in outer.bounds] == [(0, 4), (0, 4)]
    s = outer.body.seq
    assert "A_cache[i // 4, i % 4] = A[i]" in str(s[0])
    assert "T.float32(-1.0)" in str(s[1])        # A_cache padding right after its producer
    inner = s[2]
    assert isinstance(inner, tir.BufferRealize)
    t = inner.body.seq
    assert "T.float32(-2.0)" in str(t[1]) and "B[i] = B_cache[i // 4, i % 4]" in str(t[2])
    mod = build(g)
    b = np.zeros(14, "float32")
    mod(np.arange(14, dtype="float32"), b)
    np.testing.assert_array_equal(b, 2 * np.arange(14))


def test_transformed_compute_loops_simplify():
    """Loops already iterate the transformed layout: B[inverse(io, ii)] maps back to B[io, ii]."""
    A = tir.decl_buffer((14,), "float32", "A")
    B = tir.decl_buffer((14,), "float32", "B")
    m = imap(SPLIT4, 1)
    io, ii = tir.Var("io"), tir.Var("ii")
    inv = m.inverse([14])
    i_expr = tir.substitute(inv.final_indices[0], dict(zip(inv.initial_indices, [io, ii])))
    guard = tir.Not(m.padding_predicate([14]))
    guard = tir.substitute(guard, dict(zip(m.final_vars(), [io, ii])))
    body = loops([(io, 4), (ii, 4)], tir.IfThenElse(
        guard, tir.BufferStore(B, A[i_expr] + 1.0, [i_expr])))
    g = apply_buffer_transforms(func([A, B], body, {B: [m]}, {B: 0.0}))
    assert "B[io, ii] = A[io * 4 + ii]" in str(g)
    mod = build(g)
    b = np.full((4, 4), 9, "float32")
    mod(np.arange(14, dtype="float32"), b)
    np.testing.assert_array_equal(from_physical(b, SPLIT4, (14,)), np.arange(14) + 1)
    np.testing.assert_array_equal(b[3, 2:], [0, 0])


def test_axis_separators_and_chained_maps():
    A = tir.decl_buffer((2, 3, 3, 8), "float32", "A")
    B = tir.decl_buffer((2, 3, 3, 8), "float32", "B")
    n, h, w, c = (tir.Var(x) for x in "nhwc")
    body = loops([(n, 2), (h, 3), (w, 3), (c, 8)],
                 tir.BufferStore(B, A[n, h, w, c] * 3.0, [n, h, w, c]))
    m, seps = IndexMap.from_func(lambda n, h, w, c: [n, c // 4, h, AXIS, w, c % 4], 4) \
        if False else (None, None)
    from tepad.schedule import AXIS_SEPARATOR
    m, seps = IndexMap.from_func(lambda n, h, w, c: [n, c // 4, h, AXIS_SEPARATOR, w, c % 4], 4)
    f = func([A, B], body, {B: [m]}, None, {B: seps})
    g = apply_buffer_transforms(f)
    nb = g.buffer_map[B.data]
    assert [int(s) for s in nb.shape] == [2, 2, 3, 3, 4] and list(nb.axis_separators) == [3]
    assert g.attrs["arg_layouts"][B.data]["axis_separators"] == [3]
    # two maps in sequence on A: split, then swap the two outer axes
    m1 = imap(lambda n, h, w, c: [n, h, w, c // 4, c % 4], 4)
    m2 = imap(lambda n, h, w, co, ci: [n, co, h, w, ci], 5)
    f2 = func([A, B], body, {A: [m1, m2]})
    g2 = apply_buffer_transforms(f2)
    assert [int(s) for s in g2.buffer_map[A.data].shape] == [2, 2, 3, 3, 4]
    mod = build(g2)
    a = np.random.rand(2, 3, 3, 8).astype("float32")
    b = np.zeros((2, 3, 3, 8), "float32")
    mod(to_physical(a, [m1, m2]), b)
    np.testing.assert_allclose(b, 3 * a, rtol=1e-6)


def test_no_transform_is_identity():
    A, B, f = double_func()
    f0 = func(list(f.buffer_map.values()), f.body)
    assert apply_buffer_transforms(f0) is f0
