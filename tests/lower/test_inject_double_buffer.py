"""inject_double_buffer: a double_buffer stage computed at a loop gets two halves that
alternate with the loop's parity, a prologue writing iteration 0's half, and each iteration
writing the next one's half before its compute; results are numpy's."""
import warnings

import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.errors import TepadError, TepadWarning
from tepad.lower.passes import inject_double_buffer
from tepad.tir import expr as E
from tepad.tir import stmt as S

from lower_helpers import nodes

RNG = np.random.default_rng(7)


def cached_rows(n=10, width=8, scope="global", double=True):
    """C[i, j] = AA[i, j] + AA[i, width - 1 - j], AA = cache_read(A, scope) computed at C's
    row loop: every row of C reads the row of A its iteration cached."""
    A = te.placeholder((n, width), name="A")
    C = te.compute((n, width), lambda i, j: A[i, j] + A[i, width - 1 - j], name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, scope, [C])
    s[AA].compute_at(s[C], C.op.axis[0])
    if double:
        s[AA].double_buffer()
    return s, [A, C], AA


def lowered(s, args, split_loop=None, **kw):
    config = {} if split_loop is None else {"tir.InjectDoubleBuffer": {"split_loop": split_loop}}
    with tepad.transform.PassContext(config=config, **kw):
        return tepad.lower(s, args)["main"]


def run(s, args, shape, split_loop=None):
    config = {} if split_loop is None else {"tir.InjectDoubleBuffer": {"split_loop": split_loop}}
    with tepad.transform.PassContext(config=config):
        f = tepad.build(s, args)
    a = RNG.random(shape, dtype="float32")
    c = np.full(shape, np.nan, "float32")
    f(a, c)
    return a, c


def allocation(f, name):
    (a,) = [a for a in nodes(f, S.Allocate) if a.buffer_var.name == name]
    return a


def mod2(node):
    return [x for x in nodes(node, E.FloorMod) if isinstance(x.b, E.IntImm) and x.b.value == 2]


def test_allocation_doubled_hoisted_with_prologue_and_parity_halves():
    s, args, AA = cached_rows()
    plain = lowered(*cached_rows(double=False)[:2])
    assert [int(e) for e in allocation(plain, "A.global").extents] == [8]
    f = lowered(s, args)
    alloc = allocation(f, "A.global")
    assert [int(e) for e in alloc.extents] == [16]           # two halves of 8
    assert alloc is f.body                                   # hoisted above the row loop
    assert not [a for a in nodes(f, S.AttrStmt) if a.attr_key == "double_buffer_scope"]
    body = alloc.body.seq
    # prologue: the cache of row 0 into half 0, before the loop
    assert isinstance(body[0], S.For) and not mod2(body[0])
    (store,) = nodes(body[0], S.BufferStore)
    assert store.buffer.data is alloc.buffer_var
    # the loop: n - 1 iterations, each writing the half of i + 1 and reading the half of i
    loop = body[1]
    assert isinstance(loop, S.For) and int(loop.extent) == 9
    write, compute = loop.body.seq
    # marked for thread_sync (the reads after it in this iteration use the other half)
    assert isinstance(write, S.AttrStmt) and write.attr_key == "double_buffer_write"
    assert write.node is alloc.buffer_var
    assert isinstance(write.body, S.For) and mod2(write)     # (i + 1) % 2 * 8 + j
    (w,) = nodes(write, S.BufferStore)
    assert w.buffer.data is alloc.buffer_var and mod2(w.indices[0])
    reads = [x for x in nodes(compute, E.BufferLoad) if x.buffer.data is alloc.buffer_var]
    assert len(reads) == 2 and all(mod2(r.indices[0]) for r in reads)
    # the tail: the last iteration has no next row to load
    tail = body[2:]
    assert tail and not [x for t in tail for x in nodes(t, S.BufferStore)
                         if x.buffer.data is alloc.buffer_var]
    assert not [a for t in tail for a in nodes(t, S.AttrStmt)]


@pytest.mark.parametrize("scope", ["global", "local"])
@pytest.mark.parametrize("n,split_loop", [(10, None), (10, 2), (9, 2), (7, 3), (8, 4),
                                          (2, 1), (3, 4), (10, 0), (1, 0)])
def test_numerics_match_numpy(scope, n, split_loop):
    s, args, _ = cached_rows(n, scope=scope)
    a, c = run(s, args, (n, 8), split_loop)
    np.testing.assert_allclose(c, a + a[:, ::-1], rtol=1e-6)


@pytest.mark.parametrize("n,f", [(7, 3), (9, 2), (10, 4)])
def test_split_loop_repeats_the_body_and_keeps_the_tail(n, f):
    s, args, _ = cached_rows(n)
    fn = lowered(s, args, split_loop=f)
    alloc = allocation(fn, "A.global")
    main = alloc.body.seq[1]
    assert isinstance(main, S.For) and main.loop_var.name.endswith("outer")
    assert int(main.extent) == (n - 1) // f
    assert len(main.body.seq) == 2 * f                       # f x (write next, compute)
    computed_in_tail = (n - 1) % f + 1
    tail = alloc.body.seq[2:]
    assert len(tail) == computed_in_tail + (computed_in_tail - 1)   # computes + their writes


def test_symbolic_extent_guards_the_prologue_and_computes():
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    C = te.compute((n, 4), lambda i, j: A[i, j] * 3.0, name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "global", [C])
    s[AA].compute_at(s[C], C.op.axis[0])
    s[AA].double_buffer()
    fn = lowered(s, [A, C])
    alloc = allocation(fn, "A.global")
    assert isinstance(alloc.body, S.IfThenElse)              # n > 0
    f = tepad.build(s, [A, C])
    for rows in (1, 2, 5):
        a = RNG.random((rows, 4), dtype="float32")
        c = np.zeros((rows, 4), "float32")
        f(a, c)
        np.testing.assert_allclose(c, a * 3.0, rtol=1e-6)


def test_tiled_stage_with_let_bound_offsets():
    """A stage computed at a split loop: its region starts at io * 4; the moved producer must
    load the tile of io + 1."""
    A = te.placeholder((18, 6), name="A")
    B = te.compute((18, 6), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((18, 6), lambda i, j: B[i, j] * 2.0, name="C")
    s = te.create_schedule(C.op)
    io, _ = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], io)
    s[B].double_buffer()
    a, c = run(s, [A, C], (18, 6))
    np.testing.assert_allclose(c, (a + 1.0) * 2.0, rtol=1e-6)


def test_pass_object_is_the_real_pass():
    s, args, _ = cached_rows()
    kept = lowered(s, args, disabled_pass=["tir.InjectDoubleBuffer"])
    assert [a for a in nodes(kept, S.AttrStmt) if a.attr_key == "double_buffer_scope"]
    assert [int(e) for e in allocation(kept, "A.global").extents] == [8]
    mod = tir.transform.InjectDoubleBuffer()(tepad.IRModule({"main": kept}))
    assert [int(e) for e in allocation(mod["main"], "A.global").extents] == [16]
    with tepad.transform.PassContext(config={"tir.InjectDoubleBuffer": {"split_loop": 3}}):
        split = tir.transform.InjectDoubleBuffer()(tepad.IRModule({"main": kept}))["main"]
    assert [x for x in nodes(split, S.For) if x.loop_var.name.endswith("outer")]
    assert inject_double_buffer(kept) is not kept


def test_no_scope_no_change_and_root_stage_left_alone():
    s, args, _ = cached_rows(double=False)
    f = tepad.lower(s, args)["main"]
    assert inject_double_buffer(f) is f
    A = te.placeholder((6,), name="A")
    B = te.compute((6,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((6,), lambda i: B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    s[B].double_buffer()                                     # computed at the root
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = tepad.lower(s, [A, C])["main"]
    assert [int(e) for e in allocation(f, "B").extents] == [6]


def test_parallel_loop_stays_single_buffered_with_a_warning():
    s, args, AA = cached_rows()
    C = args[1]
    s[C].parallel(C.op.axis[0])
    with pytest.warns(TepadWarning, match=r"double_buffer of A\.global.*parallel"):
        f = tepad.lower(s, args)["main"]
    assert [int(e) for e in allocation(f, "A.global").extents] == [8]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TepadWarning)
        a, c = run(s, args, (10, 8))
    np.testing.assert_allclose(c, a + a[:, ::-1], rtol=1e-6)


@pytest.mark.parametrize("config", [{"split_loop": -1}, {"split_loop": "2"}, {"unroll": 2}, 3])
def test_bad_config_is_refused(config):
    s, args, _ = cached_rows()
    with pytest.raises(TepadError, match="tir.InjectDoubleBuffer"):
        with tepad.transform.PassContext(config={"tir.InjectDoubleBuffer": config}):
            tepad.lower(s, args)


def test_unflattened_lower_is_double_buffered_by_build():
    s, args, _ = cached_rows(9)
    nd = tepad.lower(s, args, flatten=False)
    assert not nodes(nd["main"], S.Allocate)                 # realize regions still
    f = tepad.build(nd)
    a = RNG.random((9, 8), dtype="float32")
    c = np.zeros((9, 8), "float32")
    f(a, c)
    np.testing.assert_allclose(c, a + a[:, ::-1], rtol=1e-6)
    from tepad.lower.pipeline import PassLog, lower_for_codegen
    log = PassLog(keep=True)
    lower_for_codegen(nd, log=log)
    (step,) = [x for x in log.steps if x.label == "inject_double_buffer.build"]
    assert step.changed
    assert [int(e) for e in allocation(step.func, "A.global").extents] == [16]


def test_producer_reading_what_the_loop_computes_stays_single_buffered():
    """B is computed at C's row loop from BL, which is computed at that same loop: B's next
    row cannot be loaded before BL's next row exists, so B keeps one buffer."""
    A = te.placeholder((6, 5), name="A")
    k = te.reduce_axis((0, 5), name="k")
    B = te.compute((6,), lambda i: te.sum(A[i, k], axis=k), name="B")
    C = te.compute((6, 5), lambda i, j: A[i, j] - B[i], name="C")
    s = te.create_schedule(C.op)
    BL = s.cache_write(B, "local")
    s[B].compute_at(s[C], C.op.axis[0])
    s[BL].compute_at(s[C], C.op.axis[0])
    s[B].double_buffer()
    with pytest.warns(TepadWarning, match=r"double_buffer of B: .*reads B\.local"):
        f = tepad.lower(s, [A, C])["main"]
    assert [int(e) for e in allocation(f, "B").extents] == [1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TepadWarning)
        fn = tepad.build(s, [A, C])
    a = RNG.random((6, 5), dtype="float32")
    c = np.zeros((6, 5), "float32")
    fn(a, c)
    np.testing.assert_allclose(c, a - a.sum(axis=1, keepdims=True), rtol=1e-5)


def test_split_loop_zero_keeps_the_loop_whole_and_legacy_build_config_sets_it():
    s, args, _ = cached_rows(6)
    fn = lowered(s, args, split_loop=0)
    alloc = allocation(fn, "A.global")
    prologue, loop = alloc.body.seq                          # no tail
    assert int(loop.extent) == 6
    (guard,) = nodes(loop, S.IfThenElse)                     # i + 1 < 6: the last write skipped
    from tepad.compat.legacy import build_config
    with build_config(double_buffer_split_loop=0):
        f2 = tepad.lower(s, args)["main"]
    assert f2.script() == fn.script()
