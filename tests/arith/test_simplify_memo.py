"""The analyzer's memoization: results are reused only under exactly the same facts.

A result cached under a constraint scope and served after the scope ended would be a silent
miscompile, so these tests check invalidation at every way the facts can change, and that a
memoized analyzer answers exactly like a fresh one.
"""
import random

from tepad import tir
from tepad.arith import Analyzer
from tepad.arith.canonical import dag_equal
from tepad.arith.proofs import _RefineRun
from tepad.lower.passes.simplify import simplify as simplify_pass

i, j, n, m = (tir.Var(s) for s in ("i", "j", "n", "m"))
io, ii = tir.Var("io"), tir.Var("ii")


def is_true(e):
    return isinstance(e, tir.IntImm) and e.value == 1


def test_result_cached_in_constraint_scope_is_not_used_after_it():
    ana = Analyzer()
    ana.bind(i, tir.Range(0, 16))
    cond = i < n
    assert not is_true(ana.simplify(cond))          # cached: not provable
    with ana.constraint_scope(n > 20):
        assert is_true(ana.simplify(cond))          # cached under the scope: True
        assert is_true(ana.simplify(i < n))         # a structurally equal copy hits it
    assert not is_true(ana.simplify(cond))
    assert not ana.can_prove(i < n)
    with ana.constraint_scope(n < 5):               # a different scope: not the old result
        assert not ana.can_prove(i < n)
    assert not ana.can_prove(i < n)


def test_nested_scopes_and_scope_reentry():
    ana = Analyzer()
    ana.bind(i, tir.Range(0, 16))
    for _ in range(2):
        with ana.constraint_scope(n > 20):
            with ana.constraint_scope(m > n):
                assert ana.can_prove(i < m)
            assert not ana.can_prove(i < m)
            assert ana.can_prove(i < n)
        assert not ana.can_prove(i < n)


def test_bind_scope_and_rebinding_invalidate():
    ana = Analyzer()
    ana.bind(i, tir.Range(0, 16))
    assert not ana.can_prove(i < 4)
    with ana.bind_scope(i, tir.Range(0, 4)):
        assert ana.can_prove(i < 4)
    assert not ana.can_prove(i < 4)
    ana.bind(i, tir.Range(0, 2))
    assert ana.can_prove(i < 4)
    ana.bind(i, n)                                  # bound to an expression now
    assert str(ana.simplify(i + 1)) == "n + 1"


def test_update_and_direct_writes_invalidate():
    ana = Analyzer()
    ana.bind(i, tir.Range(0, 16))
    assert not ana.can_prove(i < 8)
    ana.update(i, (0, 3))
    assert ana.can_prove(i < 8)
    ana._bounds[i] = (0, 100)                       # a pass writing the facts directly
    assert not ana.can_prove(i < 8)
    ana._facts.append(i < j)                        # the fact list too
    assert ana.can_prove(i < j)
    ana._facts.pop()
    assert not ana.can_prove(i < j)
    ana._sym_hi[i] = (j - 1,)
    assert ana.can_prove(i < j)
    del ana._sym_hi[i]
    assert not ana.can_prove(i < j)


def test_snapshot_restore_returns_to_the_facts_and_their_context():
    ana = Analyzer()
    ana.bind(i, tir.Range(0, 16))
    ctx = ana._context()
    snap = ana._snapshot()
    ana.bind(i, tir.Range(0, 2))
    assert ana._context() != ctx and ana.can_prove(i < 2)
    ana._restore(snap)
    assert ana._ctx == ctx and not ana.can_prove(i < 2)
    ana._bounds[i] = (0, 1)                         # the restored containers are tracked too
    assert ana._context() != ctx and ana.can_prove(i < 2)


def test_let_simplification_leaves_the_facts_and_context_unchanged():
    ana = Analyzer()
    ana.bind(i, tir.Range(0, 16))
    x = tir.Var("x")
    ctx = ana._context()
    e = tir.Let(x, i * n, tir.Select(x < 0, x, x + 1))
    ana.simplify(e)
    ana.const_int_bound(tir.Let(x, i + 1, x * 2))
    assert ana._ctx == ctx
    assert x not in ana._bounds


def test_unchanged_expression_keeps_the_callers_object():
    ana = Analyzer()
    for make in (lambda: tir.min(i, n), lambda: i < n):
        a, b = make(), make()                       # structurally equal, other objects
        assert ana.simplify(a) is a
        assert ana.simplify(b) is b


def test_statement_pass_inside_and_outside_an_if():
    A = tir.decl_buffer((4,), "int32", name="A")

    def store(k):
        return tir.BufferStore(A, tir.Select(i < n, tir.const(1), tir.const(2)), [k])
    s = tir.For(i, 0, 16, body=tir.SeqStmt([
        store(0),
        tir.IfThenElse(n > 20, store(1), store(2)),
        store(3)]))
    out = str(simplify_pass(s))
    assert out.count("A[1] = 1") == 1, out
    assert out.count("T.Select(i < n, 1, 2)") == 3, out


def test_context_id_names_exactly_the_facts():
    def make(lo, cond, var=n):
        ana = Analyzer()
        ana.bind(i, tir.Range(lo, var))
        ana._facts.append(cond)
        return ana
    a, b = make(0, i < j), make(0, i < j)               # equal facts, other expr objects
    assert a._context() == b._context()
    assert make(1, i < j)._context() != a._context()
    assert make(0, i <= j)._context() != a._context()
    assert make(0, i < j, tir.Var("n"))._context() != a._context()   # another var named n
    with a.constraint_scope(n > 20):
        inner = a._context()
        with b.constraint_scope(n > 20):
            assert b._context() == inner                # and so share memoized results
        assert b._context() != inner
    assert a._context() == b._context() != inner


def test_refine_run_replays_then_resumes():
    ana = Analyzer()
    flags = []

    def gen():
        for v in (10, 7, 3):
            flags.append(ana.constant_bounds_only)
            yield v
        return 1

    run = _RefineRun(gen())
    assert run.answer(ana, lambda v: v <= 7) == 7
    assert run.answer(ana, lambda v: v <= 10) == 10      # replayed, not re-run
    assert run.answer(ana, lambda v: v <= 3) == 3        # resumed
    assert run.answer(ana, lambda v: v <= 0) == 1        # ran to the end: final answer
    assert run.answer(ana, lambda v: v <= 0) == 1
    assert flags == [True, True, True] and ana.constant_bounds_only is False


def _queries():
    a, b = tir.Var("a"), tir.Var("b")
    exprs = [io * 4 + ii, ii, io, n - io * 4, (io * 4 + ii) // 4, n - 1 - ii, a + b, a - b]
    rng = random.Random(7)
    out = []
    for _ in range(60):
        x, y = rng.choice(exprs), rng.choice(exprs)
        op = rng.choice([tir.LT, tir.LE, tir.GE, tir.GT, tir.EQ, tir.NE])
        out.append(op(x + rng.randint(-4, 4), y))
    return a, b, out


def _setup(ana, a, b):
    ana.bind(io, tir.Range(0, (n + 3) // 4))
    ana.bind(ii, tir.Range(0, 4))
    ana.bind(a, tir.Range(0, n))
    ana.bind(b, tir.Range(a, n))


def test_memoized_analyzer_answers_like_fresh_ones():
    """Order of queries (and so the memo contents) never changes an answer."""
    a, b, qs = _queries()
    warm = Analyzer()
    _setup(warm, a, b)
    conds = [io * 4 + ii < n, ii < n - io * 4, tir.const(True)]
    for cond in conds:
        want = []
        for q in qs:
            fresh = Analyzer()
            _setup(fresh, a, b)
            with fresh.constraint_scope(cond):
                want.append(str(fresh.simplify(q)))
        with warm.constraint_scope(cond):
            got = [str(warm.simplify(q)) for q in qs]
            got_rev = [str(warm.simplify(q)) for q in reversed(qs)][::-1]
        assert got == want
        assert got_rev == want


def test_dag_equal_pair_memo():
    x1, x2 = (i + 1) * (j + 2), (i + 1) * (j + 2)
    assert dag_equal(x1, x2) and dag_equal(x1, x2)
    assert not dag_equal(x1, (i + 1) * (n + 2))
    assert not dag_equal((i + 1) * (j + 2), (i + 1) * (j + 3))


def test_the_public_fact_api_reads_and_scopes_the_facts():
    i, j = tir.Var("i", "int32"), tir.Var("j", "int32")
    ana = Analyzer()
    ana.bind(i, tir.Range(0, 10))
    assert ana.const_bound_of(i) == (0, 9) and ana.const_bound_of(j, "none") == "none"
    assert ana.range_of(i) is not None and ana.binding_of(i) is None
    ana.set_symbolic_bounds(j, (i,), (i + 4,))
    assert ana.has_symbolic_bounds() and ana.symbolically_bounded_vars() == {j}
    assert ana.symbolic_upper_bounds(j)[0].b.value == 4 and ana.has_var_facts()
    before = ana.context_id()
    with ana.const_bound_scope(j, (2, 3)):
        assert ana.const_bound_of(j) == (2, 3) and ana.context_id() != before
    assert ana.const_bound_of(j) is None and ana.context_id() == before
    snap = ana.snapshot()
    ana.add_constraint(i < j)
    assert len(ana.facts) == 1
    ana.restore(snap)
    assert len(ana.facts) == 0 and ana.context_id() == before
    assert ana.bound_numbers(i + 1) == (1, 10)
