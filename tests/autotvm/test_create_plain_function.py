"""TVM 0.6's ``autotvm.task.create(func, args, target)`` with ``func`` a plain function (no
``@autotvm.template``) that asks ``autotvm.get_config()`` for its knobs: the function is
registered under its name, its space is defined, and its configs build and compute."""
import numpy as np
import pytest

import tepad as tvm
from tepad import TepadError, autotvm
from tepad.autotvm.task.task import TASK_TABLE

from .templates import matmul_with_splits


def plain_matmul_for_create(N, L, M, dtype):
    """A plain function (not decorated) defining the tutorial's split knobs."""
    return matmul_with_splits(N, L, M, dtype)


@pytest.fixture
def clean_table():
    TASK_TABLE.pop("plain_matmul_for_create", None)
    yield
    TASK_TABLE.pop("plain_matmul_for_create", None)


def test_create_registers_a_plain_function_and_its_configs_compute(clean_table):
    task = autotvm.task.create(plain_matmul_for_create, args=(16, 8, 12, "float32"),
                               target="llvm")
    assert task.name == "plain_matmul_for_create"
    assert TASK_TABLE["plain_matmul_for_create"] is plain_matmul_for_create
    # 16 splits 5 ways (1, 2, 4, 8, 16), 12 six ways (1, 2, 3, 4, 6, 12)
    assert len(task.config_space) == 5 * 6
    rng = np.random.default_rng(3)
    a = rng.random((16, 8), dtype=np.float32)
    b = rng.random((8, 12), dtype=np.float32)
    for index in (0, 7, 29):
        s, args = task.instantiate(task.config_space.get(index))
        c = np.zeros((16, 12), "float32")
        tvm.build(s, args, "llvm")(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-5)
    # asking again finds the same registration
    again = autotvm.task.create(plain_matmul_for_create, args=(16, 8, 12, "float32"),
                                target="llvm")
    assert len(again.config_space) == len(task.config_space)


def test_another_function_under_a_registered_name_is_an_error(clean_table):
    autotvm.task.create(plain_matmul_for_create, args=(4, 4, 4, "float32"), target="llvm")

    def other(N, L, M, dtype):
        return plain_matmul_for_create(N, L, M, dtype)
    other.__name__ = "plain_matmul_for_create"
    with pytest.raises(TepadError, match="another function is registered"):
        autotvm.task.create(other, args=(4, 4, 4, "float32"), target="llvm")
