"""Deeply nested pipelines lower and build: ``tepad.support.deep_stack``.

A stage computed inside its consumer's loops nests a few statements per stage; 150 such stages
go past Python's default recursion limit in the IR walkers. Lowering and building run in a
worker thread with a large stack and a raised limit; these tests pin what the caller sees."""
import gc
import sys
import threading

import numpy as np
import pytest

import tepad
from tepad import te
from tepad.errors import TepadError
from tepad.support import deep_stack
from tepad.lower.pass_context import PassContext
from tepad.target import Target
from tepad.tir import expr as E
from tepad.tir import stmt as S
from tepad.lower.pipeline import lower_for_codegen
from tepad.tir.functor import Mutator, Visitor, post_order_visit


def _elementwise_chain(n, size=8):
    """``E_k = E_{k-1} * 0.5 + 1``, each stage at its consumer's column loop (depth n)."""
    A = te.placeholder((size, size), "float32", name="A")
    t, stages = A, []
    for k in range(n):
        src = t
        t = te.compute((size, size), lambda i, j, src=src: src[i, j] * 0.5 + 1.0,
                       name=f"E{k + 1}")
        stages.append(t)
    s = te.create_schedule(t.op)
    for k in range(n - 1, 0, -1):
        s[stages[k - 1]].compute_at(s[stages[k]], stages[k].op.axis[1])
    return s, A, t


def test_a_150_deep_chain_lowers_builds_and_computes():
    n = 150
    s, A, out = _elementwise_chain(n)
    limit = sys.getrecursionlimit()
    mod = tepad.build(tepad.lower(s, [A, out]))
    assert sys.getrecursionlimit() == limit
    a = np.random.default_rng(1).standard_normal((8, 8)).astype("float32")
    res = np.zeros((8, 8), "float32")
    mod(a, res)
    want = a.astype("float64")
    for _ in range(n):
        want = want * 0.5 + 1.0
    np.testing.assert_allclose(res, want, rtol=1e-5)


def _nested_lets(depth):
    body = S.Evaluate(E.IntImm(0, "int32"))
    for k in range(depth):
        v = E.Var(f"v{k}", "int32")
        body = S.LetStmt(v, E.IntImm(k, "int32"), body)
    return body


def test_visitors_walk_deep_statements_only_inside_the_deep_stack():
    deep = _nested_lets(3000)

    class Rename(Mutator):
        def visit_IntImm(self, e):
            return E.IntImm(e.value + 1, e.dtype)

    class Count(Visitor):
        n = 0

        def visit_LetStmt(self, st):
            self.n += 1
            self.visit(st.body)

    with pytest.raises(RecursionError):
        Count().visit(deep)
    c = Count()
    deep_stack.call_with_deep_stack(c.visit, deep)
    assert c.n == 3000
    out = deep_stack.call_with_deep_stack(Rename().visit, deep)
    assert out is not deep and out.value.value == 2999 + 1


def test_unchanged_deep_statement_comes_back_as_the_same_object():
    deep = _nested_lets(2000)
    assert deep_stack.call_with_deep_stack(Mutator().visit, deep) is deep


def test_errors_contexts_and_nesting_reach_the_caller():
    seen = {}

    def inner():
        seen["inner_thread"] = threading.current_thread()

    def outer(x):
        seen["thread"] = threading.current_thread()
        seen["pass_context"] = PassContext.current()
        seen["target"] = Target.current()
        seen["limit"] = sys.getrecursionlimit()
        deep_stack.call_with_deep_stack(inner)
        return x * 2

    limit = sys.getrecursionlimit()
    ctx = PassContext(disabled_pass=["tir.VectorizeLoop"])
    with ctx, Target("llvm"):
        assert deep_stack.call_with_deep_stack(outer, 21) == 42
    assert seen["thread"] is not threading.current_thread()
    assert seen["inner_thread"] is seen["thread"]      # nested calls run in place
    assert seen["pass_context"] is ctx
    assert str(seen["target"]).startswith("llvm")
    assert seen["limit"] >= deep_stack.RECURSION_LIMIT
    assert sys.getrecursionlimit() == limit

    def bad():
        raise TepadError("stage X: nope")

    with pytest.raises(TepadError, match="stage X"):
        deep_stack.call_with_deep_stack(bad)
    assert sys.getrecursionlimit() == limit


def test_user_passes_see_the_pass_context_of_the_caller():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    seen = []

    def user_pass(func):
        seen.append(PassContext.current())
        return func

    ctx = PassContext(config={"tir.add_lower_pass": [(1, user_pass)]})
    with ctx:
        tepad.lower(s, [A, B])
    assert seen and all(c is ctx for c in seen)


def test_registered_thread_locals_reach_the_worker_and_stay_the_callers():
    local = threading.local()
    deep_stack.carry_thread_local(local, "stack")
    deep_stack.carry_thread_local(local, "stack")      # once is enough
    local.stack = ["outer"]

    def push():
        local.stack.append("inner")
        return list(local.stack)

    assert deep_stack.call_with_deep_stack(push) == ["outer", "inner"]
    assert local.stack == ["outer"]


def test_without_a_deep_stack_the_call_runs_in_the_caller(monkeypatch):
    monkeypatch.setattr(deep_stack, "STACK_BYTES", 1 << 62)     # no system grants that
    limit = sys.getrecursionlimit()
    here = threading.current_thread()
    assert deep_stack.call_with_deep_stack(lambda: threading.current_thread()) is here
    assert sys.getrecursionlimit() == limit


def test_the_gc_young_threshold_is_raised_only_while_a_wrapped_call_runs():
    old = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        seen = deep_stack.call_with_deep_stack(gc.get_threshold)
        assert seen == (deep_stack.GC_YOUNG_THRESHOLD, 10, 10)
        assert gc.get_threshold() == (700, 10, 10)
        # a caller that changed the thresholds meanwhile keeps its own

        def change():
            gc.set_threshold(1234, 5, 5)
        deep_stack.call_with_deep_stack(change)
        assert gc.get_threshold() == (1234, 5, 5)
        # a caller whose threshold is already higher is left alone
        gc.set_threshold(10 * deep_stack.GC_YOUNG_THRESHOLD, 10, 10)
        assert deep_stack.call_with_deep_stack(gc.get_threshold)[0] == \
            10 * deep_stack.GC_YOUNG_THRESHOLD
    finally:
        gc.set_threshold(*old)


def test_the_former_module_path_still_names_the_same_functions():
    from tepad.lower import deep_stack as former
    assert former.deep_stack is deep_stack.deep_stack
    assert former.call_with_deep_stack is deep_stack.call_with_deep_stack
    assert former.carry_thread_local is deep_stack.carry_thread_local


def test_with_blocks_of_targets_and_pass_contexts_reach_the_worker():
    ctx = PassContext(opt_level=1)
    with Target("llvm") as tgt, ctx:
        seen = deep_stack.call_with_deep_stack(lambda: (Target.current(), PassContext.current()))
    assert seen[0] is tgt and seen[1] is ctx
