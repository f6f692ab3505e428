"""tepad.testing.random_array: the one helper behind tepad run, the fuzzer and autotvm."""
import numpy as np
import pytest

from tepad.testing import random_array


def test_ranges_and_dtypes():
    rng = np.random.default_rng(0)
    f = random_array((1000,), "float32", rng, floats=(-0.5, 0.5))
    assert f.dtype == np.float32 and f.min() >= -0.5 and f.max() < 0.5
    i = random_array((1000,), "uint8", rng, ints=(-100, 101))
    assert i.dtype == np.uint8 and i.min() == 0 and i.max() == 100    # narrowed to uint8
    b = random_array((2, 3), "bool", rng)
    assert b.dtype == bool and b.shape == (2, 3)
    n = random_array((1000,), "float64", rng, floats="normal")
    assert n.min() < -1 < 1 < n.max()


def test_the_same_seed_draws_the_same_numbers():
    a = random_array((5,), "int32", np.random.default_rng(7))
    b = random_array((5,), "int32", np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    assert a.min() >= 0 and a.max() < 8


def test_an_unknown_float_distribution_is_refused():
    with pytest.raises(ValueError, match="normal"):
        random_array((2,), "float32", np.random.default_rng(0), floats="gauss")
