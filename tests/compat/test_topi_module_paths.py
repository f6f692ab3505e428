"""TVM's per-operator topi module paths (topi.nn.dilate, topi.nn.util, topi.cuda.depthwise_conv2d,
tvm.topi.x86.conv2d, ...): importable, giving the package's functions, which compute what
numpy computes."""
import importlib
import warnings

import numpy as np
import pytest

import tepad
from tepad import te


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


def test_module_paths_give_the_package_names():
    from tepad.topi.nn.util import get_pad_tuple
    from tepad.topi.cuda.depthwise_conv2d import schedule_depthwise_conv2d_nhwc
    from tepad.topi.x86.conv2d import schedule_conv2d_nchw
    assert get_pad_tuple is tepad.topi.nn.get_pad_tuple
    assert schedule_depthwise_conv2d_nhwc is tepad.topi.cuda.schedule_depthwise_conv2d_nhwc
    assert schedule_conv2d_nchw is tepad.topi.x86.schedule_conv2d_nchw
    assert get_pad_tuple("SAME", (3, 3)) == (1, 1, 1, 1)


def test_top_level_topi_reaches_the_same_modules():
    topi = importlib.import_module("topi")
    dil = importlib.import_module("topi.nn.dilate")
    assert callable(dil.dilate) and callable(tepad.topi.nn.dilate)
    assert importlib.import_module("topi.util").get_const_tuple is \
        tepad.topi.utils.get_const_tuple
    assert topi is tepad.topi


def test_function_named_like_its_module_stays_callable():
    import tepad.topi.nn.dilate                  # noqa: F401 - sets the module on topi.nn
    a = te.placeholder((2, 3), name="a")
    d = tepad.topi.nn.dilate(a, (1, 2))
    s = te.create_schedule(d.op)
    f = tepad.build(s, [a, d], "llvm")
    x = np.arange(6, dtype="float32").reshape(2, 3)
    out = np.full((2, 5), -1.0, "float32")
    f(x, out)
    expect = np.zeros((2, 5), "float32")
    expect[:, ::2] = x
    np.testing.assert_array_equal(out, expect)


def test_missing_name_is_an_import_error_naming_it():
    with pytest.raises(ImportError, match="no_such_schedule"):
        exec("from tepad.topi.cuda.reduction import no_such_schedule", {})
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tepad.topi.nn.no_such_family")
