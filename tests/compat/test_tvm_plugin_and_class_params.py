"""TVM test files as they are written: fixtures from the pytest plugin (``target``, ``dev``),
``parameter(by_dict=...)`` and parameters that are class attributes."""
import numpy as np

import tepad as tvm
from tepad import te

pytest_plugins = ["tepad.testing.plugin"]


class TestClassLevelParameters:
    size = tvm.testing.parameter(8, 12)
    double = tvm.testing.parameter(by_dict={"twice": True, "once": False})

    @tvm.testing.fixture
    def expected(self, size, double):
        return np.arange(size, dtype="float32") * (2.0 if double else 1.0)

    def test_build_and_run(self, target, dev, size, double, expected):
        assert "cpu" in tvm.target.Target(target).keys
        A = te.placeholder((size,), name="A")
        B = te.compute((size,), lambda i: A[i] * (2.0 if double else 1.0), name="B")
        f = tvm.build(te.create_schedule(B.op), [A, B], target=target)
        a = tvm.nd.array(np.arange(size, dtype="float32"), dev)
        b = tvm.nd.empty((size,), "float32", dev)
        f(a, b)
        tvm.testing.assert_allclose(b.numpy(), expected)


def test_by_dict_gives_ids_and_values(request):
    ids = [item for item in request.session.items if "test_build_and_run" in item.name]
    names = sorted(i.name for i in ids)
    assert len(names) == 4 and any("twice" in n for n in names) and any("once" in n for n in
                                                                        names)


@tvm.testing.skip_if_32bit(reason="64-bit index math")
def test_skip_if_32bit_runs_here():
    import sys
    assert sys.maxsize > 2**32


def test_target_keys():
    assert tvm.target.Target("llvm").keys == ["cpu"]
    assert tvm.target.Target("cuda").keys == ["cuda", "gpu"]
    assert tvm.target.Target("llvm -keys=arm_cpu,cpu").keys == ["arm_cpu", "cpu"]


def test_disabling_a_tvm_pass_tepad_does_not_have_is_accepted():
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda i, j: A[i, j] + 1.0, name="B")
    s = te.create_schedule(B.op)
    with tvm.transform.PassContext(disabled_pass=["tir.CommonSubexprElimTIR"],
                                   config={"tir.noalias": True}):
        plain = tvm.lower(s, [A, B])["main"].script()
    assert plain == tvm.lower(s, [A, B])["main"].script()


def test_tag_scope_tags_the_computes_inside():
    A = te.placeholder((4,), name="A")
    with te.tag_scope("elemwise"):
        B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
        C = te.compute((4,), lambda i: B[i] * 2.0, name="C", tag="mine")

    @te.tag_scope(tag="conv")
    def make():
        return te.compute((4,), lambda i: A[i], name="D")
    D = make()
    E = te.compute((4,), lambda i: A[i], name="E")
    assert (B.op.tag, C.op.tag, D.op.tag, E.op.tag) == ("elemwise", "mine", "conv", "")
    with te.tag_scope("a"):
        try:
            with te.tag_scope("b"):
                pass
        except tvm.TVMError as e:
            assert "do not nest" in str(e)
        else:
            raise AssertionError("nested tag_scope accepted")
