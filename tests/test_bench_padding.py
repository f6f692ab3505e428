"""``benchmarks/bench_padding.py``: both RFC 0077 kernels, branchy and branch-free, compute
what numpy does at small sizes (the section RESULTS.md carries is made by the same code)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import bench_padding  # noqa: E402


@pytest.mark.parametrize("make, fewer", [(lambda: bench_padding.row_summation(64), True),
                                         (lambda: bench_padding.padded_conv1d(256), False)],
                         ids=["row_summation", "padded_conv1d"])
def test_padding_kernels_agree_with_numpy_and_lose_their_guards(make, fewer, monkeypatch):
    """Row summation's guard goes; the conv1d's guards stay (their else-work is not a no-op:
    RESULTS.md's table shows 3 and 3)."""
    monkeypatch.setattr(bench_padding, "RUNS", 1)
    branchy, free, numpy_row = bench_padding._run("k", make)
    assert branchy[1] == "branchy" and free[1] == "branch-free" and numpy_row[1] == "numpy"
    assert branchy[4] and free[4]                   # correct
    assert (free[2] < branchy[2]) if fewer else (free[2] == branchy[2])
