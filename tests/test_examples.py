"""Every example in examples/ builds at its small default size and matches the numpy oracle."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tepad
from tepad.tensor.tensor import PlaceholderOp

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))


def _load(path):
    spec = importlib.util.spec_from_file_location(f"tepad_example_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_examples_exist():
    assert {p.stem for p in EXAMPLES} >= {"blur", "matmul", "conv2d", "elementwise", "rowsum"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_matches_oracle(path):
    """Inputs are logical arrays; a transformed layout is converted with tepad.layout (the
    CLI's helpers, which also check the padding a producer writes)."""
    from tepad.cli import check_outputs, prepare_arrays
    ex = _load(path)
    s, args = ex.schedule()
    mod = tepad.build(s, args)
    inputs = ex.inputs() if hasattr(ex, "inputs") else None
    if inputs is not None:
        assert len(inputs) == sum(isinstance(t.op, PlaceholderOp) for t in args)
    arrays, feed, outs = prepare_arrays(mod, s, args, inputs, np.random.default_rng(0))
    mod(*arrays)
    assert outs, "an example must have an output"
    for name, ok, err, note in check_outputs(arrays, feed, outs, s):
        assert ok, f"{path.stem}: output {name} differs from the oracle (max abs err {err})"
        assert "False" not in note, f"{path.stem}: {name}: {note}"
