"""The fuzzer's nested splits (``Config.nested_split_percent``, ``--nested-splits``) and scans
with ``inputs=`` (``Config.scan_inputs_percent``, ``--scan-inputs``).

Nested splits: a piece of a split is split again by a factor that does not divide it or
exceeds it, under rfactor (often factoring the inner piece), before a late cache_write, on a
stage's loops and on the loops bound to GPU threads. Scans: init and update read x through a
stage listed in ``inputs=``, which is often inlined. Both are off by default (no choice
drawn), so the cases of a seed stay what they were. The long runs are the CLI's
(docs/fuzzing.md)."""
import collections

import pytest

from tepad.fuzz.generator import Config, RandomSource, generate
from tepad.fuzz.runner import run_source

NESTED = Config(max_stages=4, nested_split_percent=50, rfactor_percent=60, illegal_rate=0)


def _failures(outcomes):
    return "\n\n".join(f"case {i}: {o.status} at {o.where}\n{o.detail}\n"
                       f"{o.case.script() if o.case else ''}"
                       for i, o in outcomes if o.failed)


def _nested_rfactor(lines):
    """Whether a case rfactors a piece of a split of a split."""
    text = "\n".join(lines)
    return "s.rfactor(" in text and text.count(".split(") >= 2


def test_zero_percent_draws_nothing_new_and_keeps_the_draws():
    for i in range(5):
        a = generate(RandomSource(f"nested-off:{i}"), Config())
        b = generate(RandomSource(f"nested-off:{i}"),
                     Config(nested_split_percent=0, scan_inputs_percent=0))
        assert a.lines == b.lines


def test_the_case_that_found_double_counting_in_rfactor_passes():
    """seed 31, case 147 of ``--nested-splits 50``: a reduce axis of 8 split by 2, its inner
    piece split by 5, rfactor of the outer part of that: the factored stage summed
    A[i, 2] .. A[i, 6] for the piece k.inner.inner in [2, 5) before it guarded k.inner < 2."""
    out = run_source(RandomSource("tepad-fuzz:31:147"), Config(nested_split_percent=50),
                     exact=True)
    assert any("s.rfactor(" in line for line in out.case.lines)
    assert out.status == "pass", f"{out.status}: {out.detail}\n{out.case.script()}"


def test_nested_split_batch_both_bound_modes():
    outcomes, counts = [], collections.Counter()
    for i in range(10):
        out = run_source(RandomSource(f"nested-ci:{i}"), NESTED, exact=(i % 2 == 1))
        counts[out.status] += 1
        outcomes.append((i, out))
    failures = _failures(outcomes)
    assert not failures, failures
    assert counts["pass"] >= 8, counts


def test_rfactor_of_nested_pieces_batch_both_bound_modes():
    """The drawn cases (of the first 40) that rfactor a piece of a nested split."""
    outcomes = []
    for i in range(40):
        src = RandomSource(f"nested-rf:{i}")
        if not _nested_rfactor(generate(src, NESTED).lines):
            continue
        outcomes.append((i, run_source(RandomSource(f"nested-rf:{i}"), NESTED,
                                       exact=(len(outcomes) % 2 == 1))))
    failures = _failures(outcomes)
    assert not failures, failures
    assert len(outcomes) >= 6, [i for i, _ in outcomes]


def test_scans_with_inlined_inputs_batch():
    cfg = Config(max_stages=3, scan_percent=60, scan_inputs_percent=100, illegal_rate=0)
    outcomes, inlined = [], 0
    for i in range(12):
        out = run_source(RandomSource(f"scan-inputs-ci:{i}"), cfg, exact=(i % 2 == 1))
        outcomes.append((i, out))
        if out.case is not None:
            text = "\n".join(out.case.lines)
            inlined += "inputs=[" in text and "_x].compute_inline()" in text
    failures = _failures(outcomes)
    assert not failures, failures
    assert inlined >= 2, inlined


def test_gpu_nested_split_batch():
    cfg = Config(gpu=True, max_stages=3, nested_split_percent=60, illegal_rate=0)
    outcomes = []
    for i in range(8):
        out = run_source(RandomSource(f"nested-gpu-ci:{i}"), cfg, exact=True)
        outcomes.append((i, out))
    failures = _failures(outcomes)
    assert not failures, failures


@pytest.mark.slow
@pytest.mark.parametrize("exact", [False, True])
def test_nested_split_long_batch(exact):
    outcomes = [(i, run_source(RandomSource(f"nested-slow:{i}"), NESTED, exact=exact))
                for i in range(120)]
    failures = _failures(outcomes)
    assert not failures, failures
