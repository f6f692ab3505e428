"""The schedule fuzzer with te.scan stages (``Config.scan_percent``): scans of a 2-D tensor,
sometimes through a body stage, with every schedule primitive on their init, update and body
stages, differentially against tepad.testing.reference (interval and exact bounds)."""
import collections

import pytest

from tepad.fuzz.case import Config
from tepad.fuzz.generator import generate
from tepad.fuzz.runner import run_source
from tepad.fuzz.sources import RandomSource

CFG = Config(scan_percent=50, max_stages=4)


@pytest.mark.slow
def test_scan_cases_match_the_reference():
    counts = collections.Counter()
    with_scan = 0
    failures = []
    for i in range(24):
        out = run_source(RandomSource(f"scan-ci:{i}"), CFG, exact=(i % 2 == 1))
        counts[out.status] += 1
        if out.case is not None and any("te.scan(" in line for line in out.case.lines):
            with_scan += 1
        if out.failed:
            failures.append(f"case {i}: {out.status} at {out.where}\n{out.detail}\n"
                            f"{out.case.script() if out.case else ''}")
    assert not failures, "\n\n".join(failures)
    assert with_scan >= 12, (with_scan, counts)
    assert counts["pass"] >= 18, counts


def test_scan_percent_zero_draws_no_scan_and_keeps_the_draws():
    a = generate(RandomSource("scan-off:1"), Config())
    b = generate(RandomSource("scan-off:1"), Config(scan_percent=0))
    assert a.lines == b.lines
    assert not any("te.scan(" in line for line in a.lines)
