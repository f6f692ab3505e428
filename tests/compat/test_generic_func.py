"""TVM's tvm.target.generic_func / override_native_generic_func / GenericFunc, Target.target_name,
and registering a program's own schedule on topi.generic's: dispatch on the current target's
keys, the default otherwise; the dispatched schedules compute what numpy computes."""
import warnings

import numpy as np
import pytest

import tepad
from tepad import te, topi
from tepad.errors import TepadError


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


def _chain():
    a = te.placeholder((6, 5), name="a")
    b = te.compute(a.shape, lambda i, j: a[i, j] * 2.0, name="b")
    c = te.compute(a.shape, lambda i, j: b[i, j] + 1.0, name="c")
    return a, c


def test_generic_func_dispatches_on_target_keys():
    @tepad.target.generic_func
    def pick(x):
        return ("default", tepad.target.Target.current())

    @pick.register(["cuda", "gpu"])
    def _pick_gpu(x):
        return ("gpu", tepad.target.Target.current().target_name)

    assert pick(1)[0] == "default"
    with tepad.target.Target("cuda"):
        assert pick(1) == ("gpu", "cuda")
    with tepad.target.Target("llvm"):
        assert pick(1)[0] == "default"
    with pytest.raises(TepadError, match="already registered"):
        pick.register("gpu", lambda x: x)
    pick.register("cuda", lambda x: "again", override=True)   # keys tried in order
    with tepad.target.Target("cuda"):
        assert pick(1) == "again"


def test_generic_schedule_of_a_program_builds_right():
    @tepad.target.generic_func
    def my_schedule(outs):
        t = tepad.target.Target.current(allow_none=False)
        assert t.target_name == "llvm"
        s = te.create_schedule([o.op for o in outs])
        te.schedule.AutoInlineInjective(s)
        s[outs[0]].parallel(outs[0].op.axis[0])
        return s

    a, c = _chain()
    with tepad.target.Target("llvm"):
        s = my_schedule([c])
    f = tepad.build(s, [a, c], "llvm")
    x = np.random.default_rng(0).random((6, 5)).astype("float32")
    out = np.zeros_like(x)
    f(x, out)
    np.testing.assert_allclose(out, x * 2 + 1, rtol=1e-6)


def test_native_generic_func_by_name():
    @tepad.target.override_native_generic_func("tepad_test_native")
    def native(x):
        return x + 1

    gf = tepad.target.get_native_generic_func("tepad_test_native")
    gf.register(lambda x: x + 100, "cpu")
    assert native(1) == 2                   # no target: the default
    with tepad.target.Target("llvm"):
        assert native(1) == 101 and gf(1) == 101
    with pytest.raises(TepadError, match="has a default already"):
        gf.set_default(lambda x: x)


def test_program_schedule_registered_on_topi_generic():
    seen = []

    def plain(outs):
        seen.append(len(outs))
        return te.create_schedule([o.op for o in outs])

    topi.generic.schedule_injective.register(["tepad_test_key"], plain)
    a, c = _chain()
    with tepad.target.Target("llvm -keys=tepad_test_key,cpu"):
        s = topi.generic.schedule_injective([c])
    assert seen == [1]
    with tepad.target.Target("llvm"):        # other keys: topi's own x86 schedule
        s2 = topi.generic.schedule_injective([c])
    f = tepad.build(s2, [a, c], "llvm")
    x = np.random.default_rng(1).random((6, 5)).astype("float32")
    out = np.zeros_like(x)
    f(x, out)
    np.testing.assert_allclose(out, x * 2 + 1, rtol=1e-6)
    f = tepad.build(s, [a, c], "llvm")
    f(x, out)
    np.testing.assert_allclose(out, x * 2 + 1, rtol=1e-6)
