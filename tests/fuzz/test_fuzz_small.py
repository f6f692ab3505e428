"""A small fixed-seed batch of the schedule fuzzer (``python -m tepad.fuzz``) for CI.

Every case is a random compute DAG under a random schedule, lowered with interval bounds,
built with ``bounds_check=True``, run and compared with the numpy oracle; some cases contain a
deliberately illegal step, which must be refused with a TepadError. The long runs are done with
the CLI (see docs/errors.md and tepad/fuzz/__main__.py); this batch keeps the machinery honest.
"""
import collections

import numpy as np
import pytest

from tepad import TepadError
from tepad.fuzz.generator import Config, RandomSource, ReplaySource, generate
from tepad.fuzz.runner import run_source
from tepad.fuzz.shrink import shrink

CI_CONFIG = Config(max_stages=3, symbolic_percent=20, illegal_rate=15)


@pytest.mark.slow
def test_fixed_seed_batch():
    counts = collections.Counter()
    failures = []
    for i in range(100):
        out = run_source(RandomSource(f"ci:1:{i}"), CI_CONFIG)
        counts[out.status] += 1
        if out.failed:
            failures.append(f"case {i}: {out.status} at {out.where}\n{out.detail}\n"
                            f"{out.case.script() if out.case else ''}")
    assert not failures, "\n\n".join(failures)
    assert counts["pass"] > 50
    assert counts["refused"] > 0, counts   # the illegal steps were exercised


@pytest.mark.slow
def test_illegal_steps_are_refused_with_tepad_error():
    cfg = Config(max_stages=3, symbolic_percent=0, illegal_rate=100)
    statuses = collections.Counter()
    for i in range(40):
        out = run_source(RandomSource(f"illegal:{i}"), cfg)
        statuses[out.status] += 1
        assert not out.failed, f"{out.status}: {out.detail}\n{out.case.script()}"
    assert statuses["refused"] >= 10, statuses


def test_cases_replay_exactly():
    src = RandomSource("replay:3")
    a = generate(src, Config())
    b = generate(ReplaySource(src.record), Config())
    assert a.lines == b.lines
    assert a.script() == b.script()


def test_reproducer_script_runs():
    for i in range(3):
        case = generate(RandomSource(f"script:{i}"), Config(max_stages=2, illegal_rate=0))
        exec(compile(case.script(), f"<case {i}>", "exec"), {})


def test_symbolic_case_script_runs():
    # find a case with symbolic sizes and check its reproducer binds them at call time
    for i in range(200):
        case = generate(RandomSource(f"sym:{i}"), Config(max_stages=2, illegal_rate=0,
                                                          symbolic_percent=100))
        if case.base_values:
            assert "te.var(" in case.script()
            exec(compile(case.script(), "<sym>", "exec"), {})
            return
    pytest.fail("no symbolic case drawn")


def test_shrinker_minimises_choices():
    # a synthetic property: "fails" whenever the program has a reduction stage
    from tepad.fuzz import runner

    class Fake:
        def __init__(self, case):
            self.case = case

    def fake_run(src, cfg=None, exact=False):
        case = generate(src, cfg)
        failed = any(t.reduction for t in case.tensors)
        return runner.Outcome("mismatch" if failed else "pass", "", "", case,
                              list(getattr(src, "record", [])))

    orig = runner.run_source
    import tepad.fuzz.shrink as shrink_mod
    shrink_mod.run_source = fake_run
    try:
        for i in range(200):
            src = RandomSource(f"shrink:{i}")
            out = fake_run(src, Config())
            if out.failed and len(out.case.tensors) > 3:
                break
        best, small = shrink(out.choices, out.signature(), Config(), budget_s=30)
        assert small.failed
        assert len(best) < len(out.choices)
        assert len(small.case.tensors) <= len(out.case.tensors)
    finally:
        shrink_mod.run_source = orig


def test_generator_only_attaches_at_legal_points():
    from tepad.fuzz.generator import effective_consumers, legal_attach_points
    from tepad import te
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((8,), lambda i: B[i] * 2.0, name="C")
    D = te.compute((8,), lambda i: B[i] + C[i], name="D")
    s = te.create_schedule(D.op)
    assert {st.name for st in effective_consumers(s, s[B])} == {"C", "D"}
    # C is at the root, outside D's loops, and D is outside C's: no loop encloses both
    assert legal_attach_points(s, s[B]) == []
    xo, xi = s[D].split(D.op.axis[0], factor=2)
    s[C].compute_at(s[D], xi)
    pts = legal_attach_points(s, s[B])
    assert [(p.name, iv.name) for p, iv in pts] == [("D", "i.outer"), ("D", "i.inner")]
    s[B].compute_at(s[D], xo)
    import tepad
    mod = tepad.build(s, [A, D], bounds_check=True)
    a = np.arange(8, dtype="float32")
    d = np.zeros(8, "float32")
    mod(a, d)
    np.testing.assert_allclose(d, (a + 1) + (a + 1) * 2)
    s[C].compute_at(s[C], C.op.axis[0])      # accepted, as in TVM; lowering refuses it
    with pytest.raises(TepadError, match="cannot compute_at itself"):
        tepad.build(s, [A, D])
