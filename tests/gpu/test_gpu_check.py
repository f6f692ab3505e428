"""benchmarks/gpu_check.py: on a machine without a GPU it reports the environment, says so
and exits 0; with one (faked here) it runs the GPU tests and benchmarks in subprocesses and
writes one summary."""
import importlib.util
import subprocess
from pathlib import Path

import pytest

from nvptx_helpers import requires_gpu

ROOT = Path(__file__).resolve().parents[2]


def _gpu_check():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "benchmarks" /
                                                  "gpu_check.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_without_a_gpu_it_says_so_and_exits_cleanly(tmp_path):
    if requires_gpu.args[0] is False:
        pytest.skip("this machine has a GPU")
    r = subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu_check.sh"), "--out",
                        str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "No NVIDIA GPU here" in r.stdout or "nvidia-smi sees" in r.stdout
    text = (tmp_path / "gpu_check_summary.md").read_text()
    assert "| LLVM |" in text and "| libdevice |" in text and "| ptxas |" in text
    assert "## GPU tests" not in text


def test_with_a_gpu_it_runs_every_step_and_writes_one_summary(tmp_path, monkeypatch):
    gc = _gpu_check()
    ran = []

    def fake_step(name, cmd, timeout_s, env=None):
        ran.append((name, cmd, timeout_s))
        return {"name": name, "cmd": " ".join(cmd), "status": "passed", "seconds": 1.0,
                "tail": "ok"}
    monkeypatch.setattr(gc, "run_step", fake_step)
    assert gc.main(["--out", str(tmp_path), "--budget-s", "400"], present=(True, "1 GPU")) == 0
    names = [n for n, *_ in ran]
    assert names == ["GPU tests"] + [f"bench_gpu.py {w}" for w in gc.bench_workloads()] + \
        ["host overhead per call"]
    assert "W2s" in gc.bench_workloads()
    assert "tests/gpu/test_cuda_tutorials_gpu.py" in ran[0][1]
    assert "tests/gpu/test_cuda_runtime_gpu.py" in ran[0][1]
    assert all(t <= 400 for *_, t in ran)        # each within what is left of the budget
    text = (tmp_path / "gpu_check_summary.md").read_text()
    assert "GPU check passed" in text and "## bench_gpu.py W2: passed" in text


def test_a_gpu_tepad_cannot_use_is_a_failure(tmp_path, monkeypatch):
    gc = _gpu_check()
    monkeypatch.setattr(gc, "nvidia_smi", lambda: "NVIDIA H100 80GB HBM3, 570.1, 81559 MiB, 9.0")
    assert gc.main(["--out", str(tmp_path)], present=(False, "cuda-bindings missing")) == 1
    assert "tepad cannot use it" in (tmp_path / "gpu_check_summary.md").read_text()


def test_missing_dependencies_point_to_the_offline_install(tmp_path, monkeypatch):
    gc = _gpu_check()
    monkeypatch.setattr(gc, "NEEDED", ("numpy", "no_such_module_here"))
    assert gc.main(["--out", str(tmp_path)]) == 1
    assert "no_such_module_here" in (tmp_path / "gpu_check_summary.md").read_text()
