"""Differential test: random compute DAGs under random legal schedules equal the oracle."""
import pytest
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import tepad
from tepad.testing import reference

from random_programs import draw_program


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_random_schedule_matches_oracle(data):
    s, args, inputs, out, log = draw_program(data.draw)
    note = "\n".join(log)
    try:
        mod = tepad.build(s, args)
    except Exception as e:  # keep the reproducer with the failure
        raise AssertionError(f"build failed for:\n{note}") from e
    res = np.zeros([int(d) for d in out.shape], out.dtype)
    mod(*inputs, res)
    expect = reference(out, {args[0]: inputs[0]})
    if out.dtype == "float32":
        ok = np.allclose(res, expect, rtol=1e-4, atol=1e-3)
    else:
        ok = np.array_equal(res, expect)
    assert ok, f"mismatch for:\n{note}\n{tepad.lower(s, args)}"
