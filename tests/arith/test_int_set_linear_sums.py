"""IntSets of long sums: the ends of a sum of constants, vars and var * constant (vars of the
domain over constant sets) are built term by term and simplified once
(``_Evaluator._linear_ends``), instead of simplifying every partial sum (O(k^2) for
k terms). The ends must equal those the partial sums give: checked on random sums against the
evaluator with the shortcut turned off (equal values; the terms of the simplified sum may come
in another order)."""
import random

import pytest

from tepad.arith import Analyzer, IntSet
from tepad.arith import int_set as int_set_mod
from tepad.tir import expr as E


def _random_sum(rng, vs):
    e = None
    for _ in range(rng.randint(1, 12)):
        v = rng.choice(vs)
        k = rng.choice([1, 1, 2, -1, -3, 8, 32])
        term = v if k == 1 else (E.Mul(v, E.IntImm(k, "int32")) if rng.random() < 0.7
                                 else E.Mul(E.IntImm(k, "int32"), v))
        if rng.random() < 0.2:
            term = E.IntImm(rng.randint(-40, 40), "int32")
        if e is None:
            e = term
        else:
            e = E.Add(e, term) if rng.random() < 0.6 else E.Sub(e, term)
    return e


def _dom(rng, vs, outer):
    dom = {}
    for v in vs:
        if rng.random() < 0.5:
            continue
        lo = rng.randint(-5, 5)
        if rng.random() < 0.4:     # symbolic ends: a plain sum of outer vars
            base = _random_sum(rng, outer)
            dom[v] = IntSet(E.Add(base, E.IntImm(lo, "int32")),
                            E.Add(base, E.IntImm(lo + rng.randint(0, 31), "int32")))
        else:
            dom[v] = IntSet(E.IntImm(lo, "int32"), E.IntImm(lo + rng.randint(0, 31), "int32"))
    return dom


@pytest.mark.parametrize("seed", range(4))
def test_linear_sum_sets_equal_the_partial_sum_evaluation(monkeypatch, seed):
    rng = random.Random(seed)
    vs = [E.Var(f"x{k}") for k in range(5)]
    outer = [E.Var(f"o{k}") for k in range(3)]
    ana = Analyzer()
    for o in outer:
        ana.bind(o, E.Range(0, 4))
    cases = []
    for _ in range(150):
        e = _random_sum(rng, vs + outer)
        cases.append((e, _dom(rng, vs, outer)))
    fast = [ana.int_set(e, dom) for e, dom in cases]
    monkeypatch.setattr(int_set_mod._Evaluator, "_linear_ends", lambda self, e: None)
    from tepad.arith.context import MEMO
    MEMO.clear()
    slow = [ana.int_set(e, dom) for e, dom in cases]
    used = 0
    for (e, dom), a, b in zip(cases, fast, slow):
        assert ana.can_prove_equal(a.min_value, b.min_value), (e, dom, a, b)
        assert ana.can_prove_equal(a.max_value, b.max_value), (e, dom, a, b)
        assert a.is_single_point() == b.is_single_point(), (e, dom, a, b)
        used += any(isinstance(s.min_value, E.IntImm) for s in dom.values())
    assert used > 50


def test_a_long_sum_is_simplified_once_per_end(monkeypatch):
    """A sum of 60 terms over a domain var: a constant number of simplifications, not one
    per partial sum."""
    vs = [E.Var(f"o{k}") for k in range(60)]
    x = E.Var("x")
    e = x
    for v in vs:
        e = E.Add(e, E.Mul(v, E.IntImm(32, "int32")))
    ana = Analyzer()
    calls = [0]
    orig = Analyzer.simplify

    def counting(self, expr, steps=2):
        calls[0] += 1
        return orig(self, expr, steps)

    monkeypatch.setattr(Analyzer, "simplify", counting)
    s = ana.int_set(e, {x: IntSet(E.IntImm(0, "int32"), E.IntImm(31, "int32"))})
    assert calls[0] <= 4, calls
    assert s.max_value is not None and not s.is_single_point()
