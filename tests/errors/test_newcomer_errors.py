"""Errors a first-time user meets: each names what is involved and what would be valid."""
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import tepad
from tepad import te
from tepad.errors import TepadError, TepadIndexError, TepadWarning

ROOT = Path(__file__).resolve().parents[2]


def test_same_name_tensor_says_a_different_tensor_has_that_name():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] * 2, name="B")
    s = te.create_schedule(B.op)
    other = te.compute((4,), lambda i: A[i] + 1, name="B")
    with pytest.raises(TepadError, match="a different tensor with the same name 'B'"):
        s[other]
    with pytest.raises(TepadError, match=r"^C is not part of this schedule; its stages"):
        s[te.compute((4,), lambda i: A[i], name="C")]


def test_axis_index_out_of_range_names_the_op_and_its_axes():
    A = te.placeholder((4, 5), name="A")
    B = te.compute((4, 5), lambda i, j: A[i, j], name="B")
    with pytest.raises(TepadIndexError) as e:
        B.op.axis[2]
    assert isinstance(e.value, IndexError) and isinstance(e.value, TepadError)
    assert "B.op.axis[2]" in str(e.value) and "['i', 'j']" in str(e.value)
    assert B.op.axis[-1].var.name == "j" and [iv.var.name for iv in B.op.axis[:1]] == ["i"]
    with pytest.raises(TepadIndexError, match="B has no reduction axes"):
        B.op.reduce_axis[0]
    i, j = B.op.axis                       # unpacking and iteration stay list behaviour
    assert (i.var.name, j.var.name) == ("i", "j")


ROLLING_MISTAKE = """
import tepad
from tepad import te
A = te.placeholder((64, 64), name="A")
B = te.compute((64, 64), lambda i, j: A[i, j] * 2, name="B")
C = te.compute((64, 64), lambda i, j: B[i, j] + 1, name="C")
s = te.create_schedule(C.op)
io, ii = s[C].split(C.op.axis[0], factor=8)
s[B].compute_at(s[C], io)
s[B].rolling_buffer()
tepad.build(s, [A, C])
"""


@pytest.mark.parametrize("debug", [False, True])
def test_lowering_errors_arrive_without_the_internal_traceback(debug, tmp_path):
    script = tmp_path / "mistake.py"
    script.write_text(ROLLING_MISTAKE)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    if debug:
        env["TEPAD_DEBUG"] = "1"
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       env={**__import__("os").environ, **env}, timeout=300)
    assert r.returncode == 1
    assert r.stderr.strip().splitlines()[-1].startswith("tepad.errors.TepadError: rolling_buffer")
    frames = r.stderr.count('  File "')
    inside = r.stderr.count("inject_rolling_buffer.py")
    if debug:
        assert inside >= 1                  # the full trace, down to the pass
    else:
        assert inside == 0 and frames <= 6, r.stderr


def test_vectorize_of_a_symbolic_extent_warns_and_runs_scalar():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[B].vectorize(B.op.axis[0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mod = tepad.build(s, [A, B])
    msgs = [str(x.message) for x in w if issubclass(x.category, TepadWarning)]
    assert msgs and "stage B: vectorize(i)" in msgs[0] and "extent n" in msgs[0]
    a = np.random.default_rng(0).random(13).astype("float32")
    b = np.zeros_like(a)
    mod(a, b)
    np.testing.assert_allclose(b, a * 2)
    assert "T.vectorized" not in mod.func.script()          # built as a scalar loop


def _shift_kernel():
    A = te.placeholder((16,), name="A")
    C = te.compute((15,), lambda i: A[i] + A[i + 1], name="C")
    s = te.create_schedule(C.op)
    s[C].vectorize(C.op.axis[0])
    return tepad.build(s, [A, C])


def test_the_same_array_as_input_and_output_is_refused_naming_both():
    mod = _shift_kernel()
    a = np.arange(16, dtype="float32")
    with pytest.raises(TepadError) as e:
        mod(a, a[:15])
    assert "argument 1 'C' (an output)" in str(e.value)
    assert "argument 0 'A' (an input)" in str(e.value)
    with pytest.raises(TepadError, match="share memory"):
        mod(a, a[1:])                                   # overlapping, shifted
    c = np.zeros(15, "float32")
    mod(a, c)                                           # separate arrays run
    np.testing.assert_allclose(c, a[:-1] + a[1:])


def test_an_elementwise_kernel_may_run_in_place():
    A = te.placeholder((32,), name="A")
    B = te.compute((32,), lambda i: A[i] * 3.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    io, ii = s[B].split(B.op.axis[0], factor=8)
    s[B].vectorize(ii)
    mod = tepad.build(s, [A, B])
    a = np.random.default_rng(1).random(32).astype("float32")
    want = a * 3 + 1
    mod(a, a)
    np.testing.assert_allclose(a, want, rtol=1e-6)
    big = np.zeros(33, "float32")
    with pytest.raises(TepadError, match="share memory"):
        mod(big[:32], big[1:])                  # overlapping but not the same array
