"""`tepad run --target cuda` on the GPU emulator, and the demo's InferBound table."""
from pathlib import Path

import pytest

from tepad import cli, te
from tepad.demo import blur_kernel, bounds_table, iter_var_role

EX = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def no_gpu(monkeypatch):
    """As on a machine without a CUDA GPU (whatever this one has)."""
    import tepad.runtime.cuda_driver as drv
    monkeypatch.setattr(drv, "cuda_available", lambda *a, **k: False)
    monkeypatch.delenv("TEPAD_CUDA", raising=False)


def test_run_gpu_example_with_target_cuda_emulates(no_gpu, capsys):
    import os
    code = cli.main(["run", str(EX / "gpu" / "blur.py"), "--target", "cuda", "--repeat", "2"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "GPU emulator" in out
    assert "By: matches the oracle" in out
    assert "TEPAD_CUDA" not in os.environ          # the CLI put the environment back


def test_run_gpu_example_under_tepad_cuda_emulate_needs_no_target(no_gpu, monkeypatch, capsys):
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    code = cli.main(["run", str(EX / "gpu" / "blur.py"), "--repeat", "2"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "building for 'cuda'" in out and "By: matches the oracle" in out


def test_run_gpu_example_on_the_cpu_says_how_to_run_it(no_gpu, capsys):
    assert cli.main(["run", str(EX / "gpu" / "blur.py"), "--repeat", "2"]) == 2
    err = capsys.readouterr().err
    assert "target='cuda'" in err and "--target cuda" in err and "TEPAD_CUDA=emulate" in err


def test_run_cpu_example_unchanged(capsys):
    assert cli.main(["run", str(EX / "elementwise.py"), "--repeat", "2"]) == 0
    assert "matches the oracle" in capsys.readouterr().out


def test_demo_bounds_table_has_a_role_per_row_and_no_duplicates():
    _, s, *_ = blur_kernel(n=64, tile=16)
    lines = bounds_table(s).splitlines()
    assert lines[0].split()[:3] == ["stage", "itervar", "role"]
    rows = [tuple(line.split()[:3]) for line in lines[1:]]
    assert len(set(rows)) == len(rows)                 # (stage, itervar, role) distinct
    roles = {(r[0], r[1], r[2]) for r in rows}
    assert ("By", "y", "root") in roles and ("By", "y.outer", "leaf") in roles
    assert ("Bx", "y", "root") in roles and ("Bx", "y", "leaf") in roles


def test_iter_var_role_names_split_parents_inner():
    A = te.placeholder((8, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=4)
    st = s[B]
    assert iter_var_role(st, B.op.axis[0]) == "root+leaf"
    assert iter_var_role(st, k) == "root (reduce)"
    assert iter_var_role(st, ko) == "leaf (reduce)"
