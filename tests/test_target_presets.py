"""TVM's board and device target helpers (tvm.target.arm_cpu, mali, ...) and the refusal to
build CPU code for another machine's triple."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te


def test_arm_cpu_boards_carry_tvms_words():
    t = tvm.target.arm_cpu("rasp4b64")
    assert t.kind.name == "llvm"
    assert t.keys == ["arm_cpu", "cpu"]
    assert t.attrs["mtriple"] == "aarch64-linux-gnu"
    assert t.attrs["mcpu"] == "cortex-a72"
    assert t.model == "bcm2711"
    other = tvm.target.arm_cpu("my_board")
    assert other.model == "my_board" and "mtriple" not in other.attrs


def test_options_replace_the_board_words_they_name():
    t = tvm.target.arm_cpu("rasp3b", "-mcpu=cortex-a53")
    assert t.attrs["mcpu"] == "cortex-a53"
    assert str(t).count("-mcpu") == 1
    with pytest.raises(tvm.TepadError, match="options must be a string or a list"):
        tvm.target.arm_cpu("rasp3b", 5)


def test_rasp_is_the_old_name_of_arm_cpu_rasp3b():
    with pytest.warns(DeprecationWarning):
        t = tvm.target.rasp()
    assert str(t) == str(tvm.target.arm_cpu("rasp3b"))


def test_gpu_device_helpers():
    assert tvm.target.mali().kind.name == "opencl"
    assert tvm.target.mali().attrs.get("device") == "mali"
    assert tvm.target.bifrost().attrs.get("device") == "bifrost"
    assert "thread_warp_size=16" in str(tvm.target.intel_graphics())
    assert tvm.target.rocm().kind.name == "rocm"
    assert tvm.target.riscv_cpu().attrs["mtriple"].startswith("riscv64")


def test_schedules_look_up_arm_keys_under_the_board_target():
    with tvm.target.arm_cpu("rk3399"):
        assert "arm_cpu" in tvm.target.Target.current().keys


def _add_one():
    A = te.placeholder((32,), name="A")
    B = te.compute((32,), lambda i: A[i] + 1, name="B")
    return te.create_schedule(B.op), A, B


@pytest.mark.parametrize("target", ["llvm -mtriple=aarch64-linux-gnu",
                                    "llvm -mtriple=riscv64-unknown-linux-gnu"])
def test_a_foreign_triple_is_refused_not_built_for_this_machine(target):
    import platform
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the foreign triples here are foreign to an x86-64 host")
    s, A, B = _add_one()
    with pytest.raises(tvm.TepadError, match="cross compilation is not there yet"):
        tvm.build(s, [A, B], target)


def test_this_machines_triple_builds():
    import llvmlite.binding as llvm
    s, A, B = _add_one()
    f = tvm.build(s, [A, B], "llvm -mtriple=" + llvm.get_process_triple())
    b = np.zeros(32, "float32")
    f(np.arange(32, dtype="float32"), b)
    np.testing.assert_allclose(b, np.arange(32) + 1)
