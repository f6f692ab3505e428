"""The fuzzer's tensorize: drawn cases that tensorize a stage build and match the oracle;
``matching_intrinsic`` declares an intrinsic from a stage's definition (and refuses stages
that are not elementwise along their last axis); a perturbed one is refused when lowering."""
import numpy as np
import pytest

import tepad
from tepad import te
from tepad.fuzz.generator import Config, RandomSource
from tepad.fuzz.runner import run_source
from tepad.fuzz.tensorize import matching_intrinsic


@pytest.mark.slow
def test_tensorized_cases_pass():
    tensorized = 0
    for i in range(10):
        out = run_source(RandomSource(f"tensorize:{i}"),
                         Config(tensorize_percent=100, illegal_rate=0), exact=True)
        assert out.status == "pass", (i, out.status, out.where, out.detail[:500])
        tensorized += any(".tensorize(" in ln for ln in out.case.lines)
    assert tensorized >= 2


def _stencil():
    A = te.placeholder((6, 12), "int32", name="A")
    B = te.placeholder((12,), "int32", name="B")
    C = te.compute((6, 10), lambda i, j: A[i, j] * 3 + A[i, j + 2] - B[j + 1], name="C")
    return A, B, C


def test_matching_intrinsic_of_a_stencil_builds():
    A, B, C = _stencil()
    s = te.create_schedule(C.op)
    jo, ji = s[C].split(C.op.axis[1], factor=5)
    intrin = matching_intrinsic(s[C], 5)
    # A is read at j and j + 2: one 7-element input; B at j + 1: a 5-element one
    assert [b.shape[0].value for b in intrin.buffers] == [7, 5, 5]
    s[C].tensorize(ji, intrin)
    mod = tepad.build(s, [A, B, C])
    rng = np.random.default_rng(3)
    a = rng.integers(-9, 9, (6, 12), dtype="int32")
    b = rng.integers(-9, 9, (12,), dtype="int32")
    c = np.zeros((6, 10), "int32")
    mod(a, b, c)
    np.testing.assert_array_equal(c, a[:, :10] * 3 + a[:, 2:] - b[1:11])


def test_perturbed_intrinsic_is_refused():
    A, B, C = _stencil()
    s = te.create_schedule(C.op)
    jo, ji = s[C].split(C.op.axis[1], factor=5)
    s[C].tensorize(ji, matching_intrinsic(s[C], 5, perturb=True))
    with pytest.raises(tepad.TepadError, match="does not match"):
        tepad.lower(s, [A, B, C])


@pytest.mark.parametrize("body", [
    lambda A, i, j: A[j, i],                       # transposed: j in a leading index
    lambda A, i, j: A[i, j] + j,                   # the axis outside a read
    lambda A, i, j: A[i, j] + A[0, j],             # two different rows of A
])
def test_not_elementwise_along_the_last_axis(body):
    A = te.placeholder((6, 6), "int32", name="A")
    C = te.compute((6, 6), lambda i, j: body(A, i, j), name="C")
    assert matching_intrinsic(te.create_schedule(C.op)[C], 2) is None
