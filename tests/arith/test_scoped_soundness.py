"""Results simplified under a branch condition must not leak out of that branch."""
from tepad import tir
from tepad.arith import Analyzer


def test_branch_fact_about_a_linked_var_stays_in_the_branch():
    # z <= x is known; under x < 5, z < 10 holds, but not in the else branch. The memo of the
    # enclosing scope used to receive "z < 10 -> true" because z is not a var of the
    # condition, and the else branch then folded to 2.
    x, z = tir.Var("x", "int32"), tir.Var("z", "int32")
    ana = Analyzer()
    with ana.constraint_scope(z <= x):
        e = tir.if_then_else(x < 5, (z < 10).astype("int32"), (z < 10).astype("int32") * 2)
        out = ana.simplify(e)
    assert isinstance(out, tir.Call) and out.op == "tir.if_then_else"
    assert not isinstance(out.args[2], tir.IntImm), out


def test_unlinked_results_are_still_shared():
    # an expression whose vars have no link to the condition simplifies the same way inside
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    ana = Analyzer()
    e = tir.if_then_else(x < 5, y + 0, (y + 0) * 2)
    out = ana.simplify(e)
    assert str(out) == str(tir.if_then_else(x < 5, y, y * 2))
