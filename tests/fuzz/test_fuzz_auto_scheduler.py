"""The auto-scheduler's schedules in the schedule fuzzer: random annotations (tile sizes,
unroll budgets, mutations, crossovers) of the sketches of known operators and of random
DAGs, lowered with interval and exact bounds, built with ``bounds_check=True``, run and
compared with the numpy oracle (``tepad/fuzz/auto_sched.py``)."""
import collections

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tepad.fuzz.auto_sched import generate_auto
from tepad.fuzz.case import Config
from tepad.fuzz.runner import exact_available, run_source
from tepad.fuzz.sources import HypothesisSource, RandomSource, ReplaySource

AUTO = Config(auto_scheduler_percent=100, max_stages=4)


def _failure(i, out):
    return (f"case {i}: {out.status} at {out.where}\n{out.detail}\n"
            f"{out.case.script(exact=True) if out.case else ''}")


@pytest.mark.slow
def test_fixed_seed_batch_both_bound_modes():
    assert exact_available()
    counts = collections.Counter()
    failures = []
    for i in range(40):
        out = run_source(RandomSource(f"auto-ci:{i}"), AUTO, exact=True)
        counts[out.status] += 1
        if out.failed:
            failures.append(_failure(i, out))
    assert not failures, "\n\n".join(failures)
    assert counts["pass"] == 40


@given(st.data())
def test_random_sketch_annotations_match_the_oracle(data):
    out = run_source(HypothesisSource(data.draw), AUTO, exact=True)
    assert not out.failed, _failure(0, out)


RULES = ("cache_write", "compute_at", "compute_inline", "parallel", "vectorize",
         "auto_unroll_max_step", "rfactor", "transform_layout")


def test_cases_cover_the_sketch_rules():
    text = collections.Counter()
    for i in range(60):
        case = generate_auto(RandomSource(f"auto-rules:{i}"), AUTO)
        sched = "\n".join(case.lines[case.sched_start:])
        for rule in RULES:
            text[rule] += rule in sched
    assert all(text[r] > 0 for r in RULES), text


def test_auto_cases_replay_and_their_script_runs():
    src = RandomSource("auto-replay:5")
    a = generate_auto(src, AUTO)
    b = generate_auto(ReplaySource(src.record), AUTO)
    assert a.lines == b.lines
    exec(compile(a.script(), "<auto case>", "exec"), {})


def test_default_config_draws_no_auto_choice():
    # the percent is 0 by default: the fuzzer's existing seeds keep drawing the same cases
    from tepad.fuzz.generator import generate
    src = RandomSource("auto-off:1")
    case = generate(src, Config())
    assert not any("auto-scheduler sketch" in line for line in case.lines)


def _seeds_with(prefix, cfg, text, count=4, tries=150) -> list:
    """The first ``count`` seeds ``prefix:i`` whose drawn case has a line containing
    ``text`` (or, when ``text`` is callable, a line it accepts)."""
    from tepad.fuzz.generator import generate
    accepts = text if callable(text) else (lambda line: text in line)
    found = []
    for i in range(tries):
        case = generate(RandomSource(f"{prefix}:{i}"), cfg)
        if any(accepts(line) for line in case.lines):
            found.append(i)
            if len(found) == count:
                break
    assert len(found) == count, (text, found)
    return found


def test_packed_inputs_match_the_oracle_in_both_bound_modes():
    # the packing rule (cache_read + transform_layout of a matmul's B) is one choice among
    # many: run the seeds whose case packs an input
    assert exact_available()
    for i in _seeds_with("auto-pack", AUTO, ".transform_layout("):
        out = run_source(RandomSource(f"auto-pack:{i}"), AUTO, exact=True)
        assert out.status == "pass", _failure(i, out)


def test_other_vector_axes_match_the_oracle_in_both_bound_modes():
    # a register block vectorized along another loop than the last (a conv's channels, a
    # matmul's rows): its accumulator is stored by a transform_layout that moves that loop
    # last (no floordiv in the mapping, unlike a packed input's)
    assert exact_available()
    found = _seeds_with("auto-vec", AUTO,
                        lambda line: ".transform_layout(" in line and "//" not in line,
                        tries=400)
    for i in found:
        out = run_source(RandomSource(f"auto-vec:{i}"), AUTO, exact=True)
        assert out.status == "pass", _failure(i, out)


def test_ragged_register_blocks_match_the_oracle_in_both_bound_modes():
    # a register block whose width does not divide the row (a sketch for a 16-register
    # target): the last tile is partial and a packed panel is padded
    import re
    assert exact_available()
    found = _seeds_with("auto-wide", AUTO,
                        lambda line: re.search(r"'wide': \{[^}]*: [1-9]", line), tries=400)
    for i in found:
        out = run_source(RandomSource(f"auto-wide:{i}"), AUTO, exact=True)
        assert out.status == "pass", _failure(i, out)


@pytest.mark.parametrize("gpu", [False, True])
@pytest.mark.parametrize("text", ["te.comm_reducer(", "te.scan("])
def test_tuple_reductions_and_scans_match_the_oracle(gpu, text):
    # an argmax (two outputs of one reduction) and a scan: left to tepad's default on CPUs,
    # bound to threads by the GPU sketch rules (run on the emulator)
    assert exact_available()
    cfg = Config(auto_scheduler_percent=100, max_stages=4, gpu=gpu)
    for i in _seeds_with("auto-ts", cfg, text, count=3):
        out = run_source(RandomSource(f"auto-ts:{i}"), cfg, exact=True)
        assert out.status == "pass", _failure(i, out)
        if gpu:
            assert "threadIdx.x" in "\n".join(out.case.lines[out.case.sched_start:])
