"""tvm.ir.instrument.pass_instrument and PassContext(instruments=[...]): hooks called around
the pipeline's passes and around tir.transform pass objects."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.ir import instrument


def _sched():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 3.0, name="B")
    s = te.create_schedule(B.op)
    _, ii = s[B].split(B.op.axis[0], factor=8)
    s[B].vectorize(ii)
    return s, A, B


@instrument.pass_instrument
class Recorder:
    def __init__(self, skip=()):
        self.events = []
        self.skip = set(skip)

    def enter_pass_ctx(self):
        self.events.append(("enter",))

    def exit_pass_ctx(self):
        self.events.append(("exit",))

    def should_run(self, mod, info):
        return info.name not in self.skip

    def run_before_pass(self, mod, info):
        assert isinstance(mod, tepad.ir.IRModule)
        self.events.append(("before", info.name))

    def run_after_pass(self, mod, info):
        self.events.append(("after", info.name))


def test_hooks_around_every_pass_in_order():
    s, A, B = _sched()
    rec = Recorder()
    with tepad.transform.PassContext(instruments=[rec]):
        assert rec.events == [("enter",)]
        mod = tepad.build(s, [A, B])
    assert rec.events[-1] == ("exit",)
    names = [e[1] for e in rec.events if e[0] == "before"]
    assert names == [e[1] for e in rec.events if e[0] == "after"]
    assert "tir.StorageFlatten" in names and "tir.VectorizeLoop" in names
    k = rec.events.index(("before", "tir.VectorizeLoop"))
    assert rec.events[k + 1] == ("after", "tir.VectorizeLoop")
    a = np.arange(64, dtype="float32")
    b = np.zeros(64, "float32")
    mod(a, b)
    np.testing.assert_allclose(b, a * 3.0)


def test_should_run_false_skips_an_optional_pass():
    s, A, B = _sched()
    rec = Recorder(skip={"tir.VectorizeLoop"})
    with tepad.transform.PassContext(instruments=[rec]):
        mod = tepad.build(s, [A, B])
    assert ("before", "tir.VectorizeLoop") not in rec.events
    assert "<8 x float>" not in mod.ll              # the vector loop ran as a serial loop
    a = np.arange(64, dtype="float32")
    b = np.zeros(64, "float32")
    mod(a, b)
    np.testing.assert_allclose(b, a * 3.0)


def test_pass_objects_and_apply_are_instrumented():
    s, A, B = _sched()
    mod = tepad.lower(s, [A, B])
    seen = []

    def rename(f):
        seen.append(f.name)
        return f.with_attr("touched", True)
    rec = Recorder()
    with tepad.transform.PassContext(instruments=[rec]):
        out = tir.transform.Apply(rename)(mod)
        tir.transform.Simplify()(out)
    assert seen == ["main"] and out["main"].attrs["touched"]
    assert ("before", "tir.Apply") in rec.events and ("after", "tir.Simplify") in rec.events


def test_timing_and_printing_instruments(capsys):
    s, A, B = _sched()
    timing = instrument.PassTimingInstrument()
    with tepad.transform.PassContext(instruments=[timing, instrument.PrintAfterAll()]):
        tepad.lower(s, [A, B])
        text = instrument.PassTimingInstrument.render()
    assert "tir.Simplify" in text and text.startswith("Total:")
    assert "After Running Pass: PassInfo(name='tir.StorageFlatten'" in capsys.readouterr().out


def test_non_instrument_is_refused():
    with pytest.raises(tepad.TepadError, match="instrument"):
        tepad.transform.PassContext(instruments=[object()])
    with pytest.raises(tepad.TepadError, match="instrument"):
        tepad.transform.PassContext(instruments=[Recorder])     # the class, not an instance
