"""te.hybrid.script: the TIR a script parses to, and built kernels against the script run as
Python (emulation) and against numpy written independently."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.arith import Analyzer
from tepad.te.hybrid import script
from tepad.te.hybrid.runtime import HYBRID_GLOBALS


def build_and_run(outs, args, arrays, sizes=None):
    """Build a schedule of ``outs`` with arguments ``args`` (placeholders and outputs) and run
    it on ``arrays`` (inputs) with output arrays shaped by ``sizes`` for symbolic dims."""
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    s = te.create_schedule([o.op for o in outs])
    f = tepad.build(s, list(args) + list(outs))
    sizes = sizes or {}

    def dim(d):
        vmap = {v: tir.const(sizes[v.name]) for v in tir.collect_vars(d)}
        return int(Analyzer().simplify(tir.substitute(d, vmap)))
    res = [np.zeros([dim(d) for d in o.shape], o.dtype) for o in outs]
    f(*arrays, *res)
    return res


@script
def outer_product(n, m, a, b):
    """A docstring, skipped by the parser."""
    c = output_tensor((n, m), a.dtype)
    for i in range(n):
        for j in range(m):
            assert i < n and j < m, "index out of range!"
            c[i, j] = a[i] * b[j]
    return c


def test_outer_product_ir_and_numerics():
    n, m = te.size_var("n"), te.size_var("m")
    a = te.placeholder((n,), name="a")
    b = te.placeholder((m,), name="b")
    c = outer_product(n, m, a, b)
    assert isinstance(c.op, te.HybridOp) and isinstance(c.op, te.ExternOp)
    ir = c.op.body
    assert isinstance(ir, tir.For) and ir.loop_var.name == "i" and ir.extent is n
    jloop = ir.body
    assert isinstance(jloop, tir.For) and jloop.loop_var.name == "j" and jloop.extent is m
    check, store = jloop.body.seq
    assert isinstance(check, tir.AssertStmt) and check.message.value == "index out of range!"
    assert isinstance(store, tir.BufferStore) and store.buffer.name == "c"
    assert [i.name for i in store.indices] == ["i", "j"]
    av = np.random.RandomState(0).rand(9).astype("float32")
    bv = np.random.RandomState(1).rand(11).astype("float32")
    (cv,) = build_and_run(c, [a, b], [av, bv], {"n": 9, "m": 11})
    np.testing.assert_allclose(cv, np.outer(av, bv), rtol=1e-6)
    np.testing.assert_allclose(outer_product(9, 11, av, bv), np.outer(av, bv), rtol=1e-6)
    for key in HYBRID_GLOBALS:           # emulation leaves the module's globals as they were
        assert key not in globals()


def test_fanout_scalars_are_let_or_local_arrays():
    @script
    def fanout(n, a):
        three = 3.0
        b = output_tensor((a.shape[0] - 3,), a.dtype)
        for i in range(a.shape[0] - 3):
            sigma = 0.0
            for j in range(3):
                sigma += a[i + j]
            sigma = sigma / three
            b[i] = sigma
        return b

    n = te.size_var("n")
    a = te.placeholder((n,), "float32", name="a")
    b = fanout(n, a)
    loop = b.op.body
    assert isinstance(loop, tir.For) and loop.loop_var.name == "i"
    alloc = loop.body          # sigma: one element, local, per iteration of i
    assert isinstance(alloc, tir.Allocate) and [int(e) for e in alloc.extents] == [1]
    assert alloc.annotations["scope"] == "local"
    av = np.random.RandomState(2).rand(10).astype("float32")
    (bv,) = build_and_run(b, [a], [av], {"n": 10})
    ref = np.array([av[i:i + 3].sum() / 3 for i in range(7)], "float32")
    np.testing.assert_allclose(bv, ref, rtol=1e-5)
    np.testing.assert_allclose(fanout(10, av), ref, rtol=1e-5)


def test_loop_kinds():
    @script
    def looptype(a, b, c):
        d = output_tensor((16,), "int32")
        e = output_tensor((16,), "int32")
        f = output_tensor((16,), "int32")
        for i in parallel(16):
            d[i] = a[i]
        for j in vectorize(16):
            e[j] = b[j]
        for k in unroll(16):
            f[k] = c[k]
        return d, e, f

    a, b, c = (te.placeholder((16,), "int32", name=x) for x in "abc")
    d, e, f = looptype(a, b, c)
    assert d.op is e.op is f.op and [t.value_index for t in (d, e, f)] == [0, 1, 2]
    kinds = [s.kind for s in d.op.body.seq]
    assert kinds == [tir.ForKind.PARALLEL, tir.ForKind.VECTORIZED, tir.ForKind.UNROLLED]
    arrays = [np.arange(16, dtype="int32") * k for k in (1, 2, 3)]
    outs = build_and_run([d, e, f], [a, b, c], arrays)
    for got, want in zip(outs, arrays):
        np.testing.assert_array_equal(got, want)


def test_if_else_conditions():
    @script
    def branches(a):
        b = output_tensor((10,), "int32")
        c = output_tensor((10,), "int32")
        for i in unroll(10):
            b[i] = -1 if i % 2 == 0 else 1
        for i in range(10):
            if i % 2 == 0:
                c[i] = a[i]
            elif 0 <= i < 5 and not i == 3:
                c[i] = a[i] + 100
            else:
                c[i] = b[i]
        return b, c

    a = te.placeholder((10,), "int32", name="a")
    b, c = branches(a)
    av = np.arange(10, dtype="int32") * 3
    got = build_and_run([b, c], [a], [av])
    want = branches(av)
    ref_c = np.array([av[i] if i % 2 == 0 else av[i] + 100 if i in (1,) else
                      (-1 if i % 2 == 0 else 1) for i in range(10)], "int32")
    np.testing.assert_array_equal(got[1], ref_c)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_math_intrinsics():
    @script
    def intrin_real(a):
        b = output_tensor((10,), "float32")
        b[0] = sqrt(a[0])
        b[1] = log(a[1])
        b[2] = exp(a[2])
        b[3] = sigmoid(a[3])
        b[4] = power(a[4], a[5])
        b[5] = tanh(a[5])
        b[6] = min(a[4], a[5])
        b[7] = max(a[5], a[6])
        b[8] = float32(int32(a[7] * 2.5))
        b[9] = floor(a[8] / 3.0) + ceil_div(7, 2)
        return b

    a = te.placeholder((10,), "float32", name="a")
    b = intrin_real(a)
    av = np.arange(2, 12).astype("float32") / 4
    (bv,) = build_and_run(b, [a], [av])
    ref = np.array([np.sqrt(av[0]), np.log(av[1]), np.exp(av[2]), 1 / (1 + np.exp(-av[3])),
                    av[4] ** av[5], np.tanh(av[5]), min(av[4], av[5]), max(av[5], av[6]),
                    float(int(av[7] * 2.5)), np.floor(av[8] / 3) + 4], "float32")
    np.testing.assert_allclose(bv, ref, rtol=1e-5)
    np.testing.assert_allclose(intrin_real(av), ref, rtol=1e-5)

    @script
    def intrin_int(a):
        b = output_tensor((1,), "int32")
        b[0] = popcount(a[0])
        return b
    a1 = te.placeholder((1,), "int32", name="a1")
    (got,) = build_and_run(intrin_int(a1), [a1], [np.array([114514], "int32")])
    assert got[0] == bin(114514).count("1") == intrin_int(np.array([114514], "int32"))[0]


def test_non_zero_loop_starts_and_allocate():
    @script
    def blur(a):
        b = output_tensor((30, 30), "float32")
        for i in range(2, 32):
            for j in range(2, 32):
                s = 0.0
                for di in range(3):
                    for dj in range(3):
                        s += a[i - di, j - dj]
                b[i - 2, j - 2] = s / 9.0
        return b

    @script
    def blur2d(a):
        b = output_tensor((30, 30), "float32")
        for i in range(30):
            ha = allocate((3, 30), "float32")
            for j in range(3):
                for k in range(30):
                    ha[j, k] = a[i + j, k] + a[i + j, k + 1] + a[i + j, k + 2]
            for j in range(30):
                b[i, j] = (ha[0, j] + ha[1, j] + ha[2, j]) / 9.0
        return b

    a = te.placeholder((32, 32), "float32", name="a")
    av = np.random.RandomState(3).rand(32, 32).astype("float32")
    win = sum(av[di:di + 30, dj:dj + 30] for di in range(3) for dj in range(3)) / 9
    for fn in (blur, blur2d):
        (bv,) = build_and_run(fn(a), [a], [av])
        np.testing.assert_allclose(bv, win, rtol=1e-5)
        np.testing.assert_allclose(fn(av), win, rtol=1e-5)


def test_upstream_and_downstream_of_computes():
    @script
    def scale_by_index(a):
        b = output_tensor((20,), "float32")
        for i in range(20):
            b[i] = a[i] * i
        return b

    a = te.placeholder((20,), "float32", name="a")
    b = te.placeholder((20,), "float32", name="b")
    c = te.compute((20,), lambda x: a[x] + b[x], name="c")
    d = scale_by_index(c)
    e = te.compute((20,), lambda x: d[x] + 1.0, name="e")
    av, bv = (np.random.RandomState(k).randn(20).astype("float32") for k in (4, 5))
    (ev,) = build_and_run(e, [a, b], [av, bv])
    np.testing.assert_allclose(ev, (av + bv) * np.arange(20) + 1, rtol=1e-5, atol=1e-6)


def test_const_param_closure_and_const_range():
    bias = 7

    @script
    def add_something(a, b):
        c = output_tensor((11,), "int32")
        for i in range(11):
            c[i] = a[i] + b + bias
        return c

    @script
    def unrolled(a):
        c = output_tensor((4,), "int32")
        for i in const_range(4):
            if i == 0:
                c[i] = a[i]
            else:
                c[i] = c[i - 1] + a[i]
        return c

    a = te.placeholder((11,), "int32", name="a")
    av = np.arange(11, dtype="int32")
    (cv,) = build_and_run(add_something(a, tir.const(11, "int32")), [a], [av])
    np.testing.assert_array_equal(cv, av + 18)
    np.testing.assert_array_equal(add_something(av, 11), av + 18)
    a4 = te.placeholder((4,), "int32", name="a4")
    c4 = unrolled(a4)
    assert not any(isinstance(s, (tir.For, tir.IfThenElse)) for s in c4.op.body.seq)
    (got,) = build_and_run(c4, [a4], [np.array([1, 2, 3, 4], "int32")])
    np.testing.assert_array_equal(got, [1, 3, 6, 10])


def test_while_loop_and_symbolic_argument():
    @script
    def steps_to_exceed(a, limit):
        c = output_tensor(a.shape, "int32")
        for i in range(a.shape[0]):
            v = a[i]
            k = 0
            while v < limit:
                v = v * 2
                k += 1
            c[i] = k
        return c

    a = te.placeholder((8,), "int32", name="a")
    limit = te.var("limit")
    c = steps_to_exceed(a, limit)
    s = te.create_schedule(c.op)
    f = tepad.build(s, [a, limit, c])
    av = np.arange(1, 9, dtype="int32")
    cv = np.zeros(8, "int32")
    f(av, 100, cv)
    np.testing.assert_array_equal(cv, steps_to_exceed(av, 100))
    np.testing.assert_array_equal(cv, [int(np.ceil(np.log2(100 / v))) for v in av])


def test_bind_lowers_to_thread_launches():
    @script
    def vec_add(a, b):
        c = output_tensor((64,), "float32")
        for tx in bind("threadIdx.x", 64):
            c[tx] = a[tx] + b[tx]
        return c

    a = te.placeholder((64,), name="a")
    b = te.placeholder((64,), name="b")
    c = vec_add(a, b)
    attr = c.op.body
    assert isinstance(attr, tir.AttrStmt) and attr.attr_key == "thread_extent"
    assert attr.node.thread_tag == "threadIdx.x" and int(attr.value) == 64
    av, bv = np.ones(64, "float32"), np.arange(64, dtype="float32")
    np.testing.assert_allclose(vec_add(av, bv), av + bv)


@pytest.mark.parametrize("src,match", [
    ("def f(a):\n    c = output_tensor((4,), 'float32')\n    for i in range(4):\n"
     "        c[i] = a[i]\n", "no `return`"),
    ("def f(a):\n    c = output_tensor((4,), 'float32')\n    for i in range(4):\n"
     "        a[i] = 1.0\n    return c\n", "a is an input of the script and is read-only"),
    ("def f(a):\n    c = output_tensor((4,), 'float32')\n    for i in range(4):\n"
     "        c[i] = a[i, 0]\n    return c\n", "a has 1 dimensions, indexed with 2"),
    ("def f(a):\n    c = output_tensor((4,), 'float32')\n    for i in range(4):\n"
     "        c[i] = foo(a[i])\n    return c\n", "call of foo: not a hybrid intrinsic"),
    ("def f(a):\n    c = output_tensor((4,), 'float32')\n    for i in range(4):\n"
     "        i = 2\n    return c\n", "i is a loop variable and cannot be assigned"),
    ("def f(a):\n    c = output_tensor((4,), 'float32')\n    d = output_tensor((4,), 'float32')\n"
     "    return c\n", "output_tensor d is not returned"),
])
def test_mistakes_name_the_script_and_line(src, match, tmp_path):
    path = tmp_path / "bad_script.py"
    path.write_text(src)
    ns = {}
    exec(compile(src, str(path), "exec"), ns)
    fn = script(ns["f"])
    a = te.placeholder((4,), name="a")
    with pytest.raises(tepad.TepadError, match=match) as info:
        fn(a)
    assert "hybrid script f, line" in str(info.value)


def test_value_index_multi_output_feeds_another_script():
    @script
    def kernel_a(a):
        b = output_tensor((16,), "int32")
        c = output_tensor((4, 4), "int32")
        for i in range(16):
            b[i] = a[i] + 2
            c[i // 4, i % 4] = a[i] + 1
        return b, c

    @script
    def kernel_b(b, a):
        c = output_tensor((4, 4), "int32")
        for i in range(4):
            for j in range(4):
                c[i, j] = a[i * 4 + j] * b[i, j]
        return c

    a = te.placeholder((16,), "int32", name="a")
    b, c = kernel_a(a)
    d = kernel_b(c, b)
    av = np.arange(16, dtype="int32")
    (dv,) = build_and_run(d, [a], [av])
    nb, nc = kernel_a(av)
    np.testing.assert_array_equal(dv, kernel_b(nc, nb))
    np.testing.assert_array_equal(dv, ((av + 1) * (av + 2)).reshape(4, 4))


def test_bool_conditions_mixing_int_and_float():
    @script
    def foo(a):
        b = output_tensor(a.shape, a.dtype)
        b[0] = 1.2
        for i in range(1, a.shape[0] - 1):
            if a[i] * a[i - 1] < a[i] or a[i] * a[i - 1] < a[i - 1] or i * a[i] == a[i]:
                b[i] = a[i]
            else:
                b[i] = 0.0
        return b

    a = te.placeholder((10,), name="a")
    av = np.random.RandomState(6).uniform(-1, 2, 10).astype("float32")
    (bv,) = build_and_run(foo(a), [a], [av])
    want = foo(av)
    np.testing.assert_allclose(bv[:-1], want[:-1], rtol=1e-6)


def test_list_arguments_and_const_range():
    @script
    def foo(a, b):
        c = output_tensor(a.shape, a.dtype)
        d = output_tensor(a.shape, "int32")
        for i in const_range(2):
            for j in const_range(5):
                c[i, j] = float32(int32(a[i, j]) + b[i, j])
        for i in const_range(len(b)):
            for j in const_range(len(b[0])):
                d[i, j] = int32(a[i, j] + b[i, j])
        return c, d

    @script
    def hoo(a, b):
        c = output_tensor(a.shape, a.dtype)
        for i in range(a.shape[0]):
            for j in const_range(len(b)):
                d = a[i] * b[j]
                d += a[i] + b[j]
                c[i] = d
        return c

    a = te.placeholder((2, 5), name="a", dtype="float32")
    b = [[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]]
    c, d = foo(a, b)
    av = np.random.RandomState(7).uniform(0, 5, (2, 5)).astype("float32")
    cv, dv = build_and_run([c, d], [a], [av])
    bn = np.array(b)
    np.testing.assert_allclose(cv, (av.astype("int32") + bn).astype("float32"))
    np.testing.assert_array_equal(dv, (av + bn).astype("int32"))
    a5 = te.placeholder((5,), name="a5", dtype="int32")
    (hv,) = build_and_run(hoo(a5, [1, 2, 3, 4, 5]), [a5], [np.arange(5, dtype="int32")])
    np.testing.assert_array_equal(hv, hoo(np.arange(5, dtype="int32"), [1, 2, 3, 4, 5]))


def test_captured_tuples_and_lists():
    n = 8
    constant_tuple = (10, n)
    constant_list = [[1, 2], [3, n]]
    const_value = 1

    @script
    def add_something(a):
        c = output_tensor((constant_tuple[1],), "int32")
        for i in range(constant_tuple[1]):
            c[i] = a[i] + constant_list[1][const_value]
        return c

    a = te.placeholder((n,), "int32", name="a")
    av = np.arange(n, dtype="int32")
    (cv,) = build_and_run(add_something(a), [a], [av])
    np.testing.assert_array_equal(cv, av + n)


def test_array_of_tensors_argument():
    @script
    def sum_array(inputs):
        out = output_tensor((10,), inputs[0].dtype)
        n = len(inputs)
        for i in range(10):
            out[i] = 0.0
            for j in const_range(n):
                out[i] += inputs[j][i]
        return out

    inputs = [te.placeholder((10,), name=f"t{k}") for k in range(5)]
    out = sum_array(inputs)
    assert len(out.op.inputs) == 5
    arrays = [np.random.RandomState(k).rand(10).astype("float32") for k in range(5)]
    (got,) = build_and_run(out, inputs, arrays)
    np.testing.assert_allclose(got, sum(arrays), rtol=1e-6)


def _loops(stmt):
    out = []
    tir.stmt_functor.post_order_visit(
        stmt, lambda n: out.append(n) if isinstance(n, tir.For) else None)
    return out[::-1]


def test_schedule_the_axes_of_a_hybrid_stage():
    @script
    def outer(a, b):
        c = output_tensor((64, 64), a.dtype)
        for i in range(64):
            for j in range(64):
                c[i, j] = a[i] * b[j]
        return c

    a = te.placeholder((64,), name="a")
    b = te.placeholder((64,), name="b")
    c = outer(a, b)
    assert [iv.name for iv in c.op.axis] == ["i", "j"]
    av = np.random.RandomState(8).rand(64).astype("float32")
    bv = np.random.RandomState(9).rand(64).astype("float32")

    def check(sch, names, kinds=None):
        low = tepad.lower(sch, [a, b, c])["main"]
        loops = _loops(low.body)
        assert [l.loop_var.name for l in loops] == names
        if kinds:
            assert [l.kind for l in loops] == kinds
        f = tepad.build(sch, [a, b, c])
        out = np.zeros((64, 64), "float32")
        f(av, bv, out)
        np.testing.assert_allclose(out, np.outer(av, bv), rtol=1e-6)

    sch = te.create_schedule(c.op)
    i, j = c.op.axis
    io, ii = sch[c].split(i, 4)
    sch[c].parallel(ii)
    jo, ji = sch[c].split(j, 4)
    joo, joi = sch[c].split(jo, 4)
    sch[c].vectorize(ji)
    sch[c].reorder(ii, io, joo, joi, ji)
    check(sch, ["i.inner", "i.outer", "j.outer.outer", "j.outer.inner", "j.inner"],
          [tir.ForKind.PARALLEL, tir.ForKind.SERIAL, tir.ForKind.SERIAL, tir.ForKind.SERIAL,
           tir.ForKind.VECTORIZED])
    sch = te.create_schedule(c.op)
    sch[c].fuse(c.op.axis[0], c.op.axis[1])
    check(sch, ["i.j.fused"])
    sch = te.create_schedule(c.op)
    sch[c].split(c.op.axis[0], 3)               # imperfect: 22 * 3 > 64, guarded
    check(sch, ["i.outer", "i.inner", "j"])
    sch = te.create_schedule(c.op)
    with pytest.raises(tepad.TepadError, match="compute_inline needs a compute stage"):
        sch[c].compute_inline()

    @script
    def rows(a, b):
        c = output_tensor((64, 64), a.dtype)
        for i in parallel(64):
            for j in range(64):
                c[i, j] = a[i] * b[j]
        return c
    c = rows(a, b)
    sch = te.create_schedule(c.op)
    sch[c].split(c.op.axis[1], 8)                # the script's parallel i stays parallel
    check(sch, ["i", "j.outer", "j.inner"],
          [tir.ForKind.PARALLEL, tir.ForKind.SERIAL, tir.ForKind.SERIAL])


def test_script_calling_a_script_is_inlined():
    @script
    def foo(a, b):
        c = outer_product(10, 10, a, b)
        d = output_tensor(c.shape, c.dtype)
        t = allocate((10,), "float32")
        for i in range(10):
            t[i] = a[i] + 1.0
        e = outer_product(10, 10, t, b)
        for i in range(10):
            for j in range(10):
                d[i, j] = c[i, j] + e[i, j] + i * j
        return d

    a = te.placeholder((10,), name="a")
    b = te.placeholder((10,), name="b")
    d = foo(a, b)
    assert [t.name for t in d.op.inputs] == ["a", "b"]
    av, bv = (np.random.RandomState(k).rand(10).astype("float32") for k in (10, 11))
    (dv,) = build_and_run(d, [a, b], [av, bv])
    ref = np.outer(av, bv) + np.outer(av + 1, bv) + np.outer(np.arange(10), np.arange(10))
    np.testing.assert_allclose(dv, ref, rtol=1e-5)
    np.testing.assert_allclose(foo(av, bv), ref, rtol=1e-5)


def test_max_num_threads_reads_the_current_target():
    @script
    def blocks(a):
        b = output_tensor(a.shape, a.dtype)
        m = max_num_threads(True)
        for i in range(ceil_div(a.shape[0], m)):
            for j in range(m):
                if i * m + j < a.shape[0]:
                    b[i * m + j] = a[i * m + j] * 2.0
        return b

    a = te.placeholder((100,), name="a")
    with tepad.target.Target("cuda"):
        b = blocks(a)
    assert int(b.op.axis[1].dom.extent) == 1024
    av = np.arange(100, dtype="float32")
    (bv,) = build_and_run(blocks(a), [a], [av])      # no target: one thread per block
    np.testing.assert_allclose(bv, av * 2)
    with tepad.target.Target("cuda"):
        np.testing.assert_allclose(blocks(av), av * 2)
