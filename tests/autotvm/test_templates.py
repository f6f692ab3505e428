"""The W1-W6 templates of examples/tune_templates.py: every one builds and matches the oracle
at its default config and at a few others, at the small sizes of its TUNE_ARGS."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tepad
from tepad import autotvm
from tepad.autotvm.measure import random_array
from tepad.autotvm.task.space import InstantiationError
from tepad.tensor.tensor import PlaceholderOp
from tepad.testing import reference

PATH = Path(__file__).resolve().parents[2] / "examples" / "tune_templates.py"
spec = importlib.util.spec_from_file_location("tepad_test_tune_templates", PATH)
TEMPLATES = importlib.util.module_from_spec(spec)
spec.loader.exec_module(TEMPLATES)


@pytest.mark.parametrize("name", sorted(TEMPLATES.TUNE_ARGS))
def test_template_configs_match_the_oracle(name):
    task = autotvm.task.create(name, args=TEMPLATES.TUNE_ARGS[name], target="llvm")
    n = len(task.config_space)
    assert n > 1
    rng = np.random.default_rng(0)
    checked = 0
    for index in sorted({0, n - 1, int(rng.integers(0, n))}):
        try:
            s, args = task.instantiate(task.config_space.get(index))
        except InstantiationError:
            continue
        mod = tepad.build(s, args)
        arrays = [random_array(tuple(int(d) for d in t.shape), t.dtype, rng) for t in args]
        feed = {t: a for t, a in zip(args, arrays) if isinstance(t.op, PlaceholderOp)}
        outs = [i for i, t in enumerate(args) if not isinstance(t.op, PlaceholderOp)]
        for i in outs:
            arrays[i][...] = 0
        mod(*arrays)
        for i, expect in zip(outs, reference([args[i] for i in outs], feed)):
            np.testing.assert_allclose(arrays[i], expect, rtol=1e-5, atol=1e-5)
        checked += 1
    assert checked >= 2
