"""Nested min/max stay small: dominated operands dropped, max over min distributed
when it folds, additive terms pushed into a min/max when they cancel; and witnesses skip the
symbolic-bound search of proofs that cannot succeed."""
import pytest

from tepad import tir
from tepad.arith import Analyzer
from tepad.arith import proofs
from tepad.arith.witness import witness_values

x, y, n = tir.Var("x"), tir.Var("y"), tir.Var("n")
io = tir.Var("io")


def _ana(**ranges):
    ana = Analyzer()
    for name, (lo, ext) in ranges.items():
        ana.bind(globals()[name], tir.Range(lo, ext))
    return ana


@pytest.mark.parametrize("expr, want, ranges", [
    (lambda: tir.min(y, tir.min(y + 1, 255)), "T.min(y, 255)", {}),
    (lambda: tir.max(y, tir.max(y - 1, 0)), "T.max(y, 0)", {}),
    (lambda: tir.min(tir.min(x, y), tir.min(x + 2, 9)), "T.min(T.min(x, y), 9)", {}),
    (lambda: tir.max(y, tir.min(y + 1, 255)), "T.min(y + 1, 255)", {"y": (0, 256)}),
    (lambda: tir.max(y, tir.min(y + 1, 255)), "T.max(y, T.min(y + 1, 255))", {}),
    (lambda: tir.min(y, tir.max(y - 1, 0)), "T.max(y - 1, 0)", {"y": (0, 256)}),
    (lambda: tir.min(x + 32, 255) - x + 1, "T.min(256 - x, 33)", {}),
    (lambda: 256 - tir.max(x, 7) + x, "T.min(x + 249, 256)", {}),
    (lambda: tir.min(x + 32, 255) - y, "T.min(x + 32, 255) - y", {}),
    (lambda: tir.floordiv(tir.min(256 - io * 32, 33) + 31, 32), "T.min(8 - io, 2)",
     {"io": (0, 8)}),
])
def test_minmax_forms(expr, want, ranges):
    ana = _ana(**ranges)
    assert str(ana.simplify(expr())) == want


def test_nested_clamps_stay_linear():
    """The bound of a clamped chain level after level: one more term, never twice the size."""
    ana = _ana(io=(0, 8))
    lo = io * 32
    for k in range(12):
        v = tir.Var(f"i{k}")
        ana.bind(v, tir.Range(0, 2))
        p = lo + v
        m = ana.simplify(tir.min(p, tir.min(p + 1, 255)))
        assert len(str(m)) < 40 + 6 * k
        lo = p


def test_witnesses_respect_every_fact():
    i, j = tir.Var("i"), tir.Var("j")
    ana = Analyzer()
    ana.bind(io, tir.Range(0, 8))
    ana.bind(i, tir.Range(0, tir.min(256 - io * 32, 33)))
    with ana.constraint_scope(i + j <= 40):
        ana.bind(j, tir.Range(0, 30))
        vals = list(witness_values(ana, io * 32 + i + j, {io: 1, i: 1, j: 1}))
        assert vals and max(vals) <= 224 + 40 and min(vals) == 0


def test_failing_proofs_skip_the_search(monkeypatch):
    calls = []
    orig = proofs.BoundProofs._refine

    def counting(self, d, side, done):
        calls.append(d)
        return orig(self, d, side, done)

    monkeypatch.setattr(proofs.BoundProofs, "_refine", counting)
    ana = _ana(io=(0, 8))
    acc, ext = io * 32, tir.min(256 - io * 32, 33)
    for k in range(6):
        v = tir.Var(f"i{k}")
        ana.bind(v, tir.Range(0, ext))
        acc = acc + v
        ext = tir.min(256 - acc, 2)
    # neither order of the min's operands holds everywhere: no symbolic search needed
    assert str(ana.simplify(ext)).startswith("T.min(256 - io * 32 - i0")
    assert calls == []
    # a true one is still proved through the symbolic bounds
    assert ana.can_prove(acc <= 255)
