"""The statement-level Simplify pass (tepad.lower.passes.simplify)."""
from tepad import tir
from tepad.arith import simplify as arith_simplify
from tepad.lower.passes.simplify import simplify

n = tir.Var("n")


def buf(name="A", shape=(64,)):
    return tir.decl_buffer(shape, "float32", name=name)


def test_for_binds_loop_var_and_simplifies_indices():
    A = buf()
    i, j = tir.Var("i"), tir.Var("j")
    body = tir.BufferStore(A, tir.const(1.0), [((i * 8 + j) // 8) * 8 + (i * 8 + j) % 8])
    s = tir.For(i, 0, 8, body=tir.For(j, 0, 8, body=body))
    out = simplify(s)
    assert "A[i * 8 + j] = T.float32(1.0)" in str(out)
    guarded = tir.For(i, 0, 8, body=tir.IfThenElse(i < 8, tir.BufferStore(A, 1.0, [i]),
                                                 tir.BufferStore(A, 2.0, [i])))
    assert str(simplify(guarded)) == "for i in range(8):\n    A[i] = T.float32(1.0)"


def test_if_removal_and_constraint_scope():
    A = buf()
    io, ii = tir.Var("io"), tir.Var("ii")
    inner = tir.IfThenElse(io * 4 + ii < n,
                           tir.IfThenElse(ii < n - io * 4, tir.BufferStore(A, 1.0, [io * 4 + ii]),
                                          tir.BufferStore(A, 3.0, [0])))
    s = tir.For(io, 0, (n + 3) // 4, body=tir.For(ii, 0, 4, body=inner))
    out = str(simplify(s))
    assert out.count("if ") == 1, out
    assert "A[io * 4 + ii] = T.float32(1.0)" in out
    assert "T.float32(3.0)" not in out
    never = tir.For(ii, 0, 4, body=tir.IfThenElse(ii > 10, tir.BufferStore(A, 1.0, [ii]),
                                                 tir.BufferStore(A, 2.0, [ii])))
    assert str(simplify(never)) == "for ii in range(4):\n    A[ii] = T.float32(2.0)"
    gone = tir.For(ii, 0, 4, body=tir.IfThenElse(ii > 10, tir.BufferStore(A, 1.0, [ii])))
    assert str(simplify(gone)) == "for ii in range(4):\n    T.evaluate(0)"


def test_else_branch_gets_negated_condition():
    A = buf()
    i = tir.Var("i")
    s = tir.For(i, 0, 16, body=tir.IfThenElse(
        i < 8, tir.BufferStore(A, 1.0, [tir.min(i, 7)]),
        tir.BufferStore(A, 2.0, [tir.max(i, 8)])))
    out = str(simplify(s))
    assert "A[i] = T.float32(1.0)" in out and "A[i] = T.float32(2.0)" in out


def test_extent_one_and_zero_loops():
    A = buf()
    i, j = tir.Var("i"), tir.Var("j")
    s = tir.For(i, 3, 1, body=tir.For(j, 0, 0, body=tir.BufferStore(A, 1.0, [j])))
    assert str(simplify(s)) == "T.evaluate(0)"
    s = tir.For(i, 3, 1, body=tir.BufferStore(A, 1.0, [i * 2 + 1]))
    assert str(simplify(s)) == "A[7] = T.float32(1.0)"
    s = tir.For(i, 0, n - n + 1, body=tir.BufferStore(A, 1.0, [i + 5]))
    assert str(simplify(s)) == "A[5] = T.float32(1.0)"


def test_seq_drops_noops_and_realize_allocate():
    A = buf()
    i = tir.Var("i")
    seq = tir.SeqStmt([tir.Evaluate(0), tir.BufferStore(A, 1.0, [i + 1 - 1]), tir.Evaluate(1)])
    assert str(simplify(seq)) == "A[i] = T.float32(1.0)"
    B = buf("B")
    real = tir.BufferRealize(B, [tir.Range.from_min_extent(i * 4 - i * 4, 3 + 1)], True,
                             tir.BufferStore(B, 0.0, [i % 4]))
    out = str(simplify(tir.For(i, 0, 4, body=real)))
    assert "B[0:4]" in out and "B[i] = " in out
    buf_var = tir.Var("C", "handle")
    alloc = tir.Allocate(buf_var, "float32", [n * 2 - n], True, tir.Evaluate(0))
    assert str(simplify(alloc).extents[0]) == "n"


def test_primfunc_and_convenience():
    A = buf()
    i = tir.Var("i")
    body = tir.For(i, 0, 64, body=tir.BufferStore(A, tir.const(2.0) * 3.0, [i // 64 + i]))
    f = tir.PrimFunc([A.data], body, {A.data: A})
    g = simplify(f)
    assert isinstance(g, tir.PrimFunc) and g.buffer_map == f.buffer_map
    assert "A[i] = T.float32(6.0)" in str(g)
    assert str(arith_simplify(body)) == str(g.body)
    same = simplify(g)
    assert same is g                       # nothing left to do: same object


def test_let_and_thread_extent():
    A = buf()
    v, i = tir.Var("v"), tir.Var("i")
    s = tir.For(i, 0, 4, body=tir.LetStmt(v, i * 2, tir.BufferStore(A, 1.0, [tir.min(v, 6)])))
    assert "A[v] = " in str(simplify(s))
    tx = tir.IterVar(None, tir.Var("tx"), tir.IterVarType.ThreadIndex, "threadIdx.x")
    s = tir.AttrStmt(tx, "thread_extent", 32,
                     tir.IfThenElse(tx.var < 32, tir.BufferStore(A, 1.0, [tx.var])))
    assert "if" not in str(simplify(s))


def test_let_with_min_value_is_known_by_its_constant_range():
    """A min/max let value bounds its var by constants only (the var stays opaque): what the
    constants prove is still proven, the symbolic value is not expanded into other proofs."""
    A = buf()
    v, i, j = tir.Var("v"), tir.Var("i"), tir.Var("j")
    body = tir.IfThenElse(v <= 40, tir.BufferStore(A, 1.0, [j]))
    s = tir.For(i, 0, 8, body=tir.LetStmt(v, tir.min(i * 4 + 10, 30),
                                         tir.For(j, 0, 8, body=body)))
    out = str(simplify(s))
    assert "if" not in out and "v: T.int32 = T.min(i * 4 + 10, 30)" in out
    # i * 4 <= v holds, but only through the value's structure: left to run time
    body = tir.IfThenElse(i * 4 <= v, tir.BufferStore(A, 1.0, [j]))
    s = tir.For(i, 0, 8, body=tir.LetStmt(v, tir.min(i * 4 + 10, 30),
                                         tir.For(j, 0, 8, body=body)))
    assert "if i * 4 <= v" in str(simplify(s))
