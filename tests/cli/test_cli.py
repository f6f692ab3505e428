"""tepad's command line (tepad/cli.py) on the examples, in-process, plus one real subprocess."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tepad import cli
from tepad.lower.pipeline import PHASES, Options, select

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_subprocess():
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "tepad", "demo"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "matches numpy: True" in p.stdout
    assert "-- InferBound --" in p.stdout


def test_lower_every_pass(capsys):
    code, out, _ = run(capsys, "lower", EX / "blur.py")
    assert code == 0
    assert "# ---- after schedule_ops" in out
    assert "storage_flatten" in out and "vectorize_loop" in out
    assert "def main(" in out


def test_lower_pass_all_shows_every_step_build_runs_in_order(capsys):
    """``tepad lower FILE --pass all``: one header per step of PIPELINE that build runs,
    in the order it runs them; the options add the passes they select."""
    for flags, opts in (((), Options()), (("--checked", "--bounds-check"),
                                          Options(checked=True, bounds_check=True))):
        code, out, _ = run(capsys, "lower", EX / "padded_conv1d.py", "--pass", "all", *flags)
        assert code == 0
        heads = [ln for ln in out.splitlines() if ln.startswith("# ---- ")]
        shown = [h[len("# ---- "):].removeprefix("after ").split(" ")[0].rstrip(":")
                 for h in heads]
        assert shown == ["schedule_ops"] + [label for label, _ in select(PHASES, opts)]
    assert any("(unchanged" in h for h in heads)


def test_lower_one_pass_and_list(capsys):
    code, out, _ = run(capsys, "lower", EX / "maxpool_rolling.py", "--pass", "inject_rolling_buffer")
    assert code == 0
    assert out.startswith("# ---- after inject_rolling_buffer")
    assert "% 6" in out                       # the circular index of the seed
    assert out.count("# ---- after") == 1
    code, out, _ = run(capsys, "lower", EX / "blur.py", "--list-passes")
    assert code == 0 and "simplify.flattened" in out and "schedule_ops" in out


def test_lower_for_cuda_prints_the_backend_steps(capsys, monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    gpu = EX / "gpu" / "elementwise.py"
    code, out, _ = run(capsys, "lower", gpu, "--target", "cuda")
    heads = [line for line in out.splitlines() if line.startswith("# ----")]
    assert code == 0 and "split_host_device" in heads[-2] and "lower_warp_memory" in heads[-1]
    assert "verify_gpu_code" in out and "emulate_gpu_threads" not in out
    code, out, _ = run(capsys, "lower", gpu, "--target", "cuda", "--emulate")
    assert code == 0 and "after emulate_gpu_threads" in out and "split_host_device" not in out
    code, out, _ = run(capsys, "lower", gpu, "--target", "cuda", "--list-passes")
    assert code == 0 and "split_host_device" in out and "backend" in out
    code, out, _ = run(capsys, "lower", gpu, "--target", "opencl")
    assert code == 0 and "split_host_device" in out        # lowered as for cuda
    code, _, err = run(capsys, "lower", gpu, "--target", "vulkan")
    assert code == 2 and "vulkan" in err


def test_lower_unknown_pass_and_func(capsys):
    code, _, err = run(capsys, "lower", EX / "blur.py", "--pass", "nope")
    assert code == 2 and "unknown pass 'nope'" in err
    code, _, err = run(capsys, "lower", EX / "blur.py", "--func", "nope")
    assert code == 2 and "no function nope()" in err and "schedule" in err


def test_lower_other_func(capsys):
    code, out, _ = run(capsys, "lower", EX / "maxpool_rolling.py", "--func", "without_rolling",
                       "--pass", "storage_flatten")
    assert code == 0 and "% 6" not in out


def test_bounds_table_and_regions(capsys):
    code, out, _ = run(capsys, "bounds", EX / "blur.py", "--stage", "Bx", "--iters", "2")
    assert code == 0
    assert "y_outer * 32" in out                 # Bx's row range follows By's tile
    assert "x.outer, y.outer" in out             # attach path, innermost first
    assert "computed (interval)" in out or "interval table only" in out
    assert "y.outer=1, x.outer=0" in out
    assert "[32,66)x[0,128)" in out              # tile 1 needs rows 32..65 of Bx


def test_bounds_interval_only(capsys):
    code, out, _ = run(capsys, "bounds", EX / "matmul.py", "--no-exact")
    assert code == 0 and "exact min" not in out and "packedB" in out


def test_run_checks_oracle(capsys):
    code, out, _ = run(capsys, "run", EX / "matmul.py", "--repeat", "3")
    assert code == 0
    assert "C: matches the oracle" in out
    assert "over 3 calls" in out


def test_run_opencl_goes_to_the_emulator(capsys, monkeypatch):
    """tepad has no OpenCL runtime: `tepad run --target opencl` says so and emulates."""
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    code, out, _ = run(capsys, "run", EX / "gpu" / "elementwise.py", "--target", "opencl",
                       "--repeat", "2")
    assert code == 0 and "no OpenCL runtime" in out and "matches the oracle" in out


def test_run_transformed_arguments(capsys):
    code, out, _ = run(capsys, "run", EX / "padded_conv1d.py", "--repeat", "2")
    assert code == 0, out
    assert "A: float32[16] -> physical (3, 8)" in out
    assert "B: matches the oracle" in out
    assert "padding holds 0.0: True" in out


def test_run_random_inputs_progress(capsys):
    code, out, err = run(capsys, "run", EX / "maxpool_rolling.py", "--random-inputs",
                         "--repeat", "5", "--progress")
    assert code == 0 and "C: matches the oracle" in out
    assert "5/5" in err


def test_graph_dot(capsys):
    code, out, _ = run(capsys, "graph", EX / "blur.py")
    assert code == 0
    assert out.startswith('digraph "blur"')
    assert '"A" -> "Bx"' in out and '"Bx" -> "By"' in out
    assert "compute_at x.outer" in out and "style=dashed" in out


def test_layout_text(capsys):
    code, out, _ = run(capsys, "layout", EX / "padded_conv1d.py", "--stage", "A")
    assert code == 0
    assert "A: logical [16] -> physical [3, 8]" in out
    assert "padding: 8 of 24" in out
    assert "  .. ..  0  1  2  3  4  5" in out     # RFC 0077's picture: two pad cells first
    code, out, _ = run(capsys, "layout", EX / "blur.py")
    assert code == 2


def test_bench_passthrough(capsys, monkeypatch):
    calls = []
    monkeypatch.setattr(subprocess, "call", lambda cmd, cwd=None: calls.append(cmd) or 0)
    code, out, _ = run(capsys, "bench", "--quick", "--only", "W1")
    assert code == 0
    assert calls and calls[0][1].endswith("run.py")
    assert calls[0][2:] == ["--quick", "--only", "W1"]          # --quick: no report written


def test_bench_never_overwrites_the_tracked_results_unless_asked(capsys, monkeypatch, tmp_path):
    """A full ``tepad bench`` writes its report in the current directory, not over the tracked
    benchmarks/RESULTS.md; ``--out`` picks the file (relative to the current directory)."""
    calls = []
    monkeypatch.setattr(subprocess, "call", lambda cmd, cwd=None: calls.append(cmd) or 0)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "bench", "--only", "W1")
    assert code == 0
    assert calls[-1][2:] == ["--out", str(tmp_path / cli.BENCH_REPORT), "--only", "W1"]
    assert f"report: {tmp_path / cli.BENCH_REPORT}" in out
    code, out, _ = run(capsys, "bench", "--quick", "--out", "q.md")
    assert calls[-1][2:] == ["--quick", "--out", str(tmp_path / "q.md")]
    assert all("RESULTS.md" not in " ".join(c) for c in calls)


def test_missing_file(capsys):
    code, _, err = run(capsys, "run", "nope.py")
    assert code == 2 and "no such file" in err


def test_api_reference_lists_every_public_name():
    """docs/api.md has an entry (an anchor) for every ``__all__`` name of the API modules and
    for every public method of Stage and Schedule."""
    import importlib
    import importlib.util
    spec = importlib.util.spec_from_file_location("api_reference",
                                                  ROOT / "docs" / "api_reference.py")
    api = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(api)
    text = (ROOT / "docs" / "api.md").read_text()
    missing = [f"{m}.{n}" for m in api.MODULES
               for n in importlib.import_module(m).__all__
               if f'<a id="{m}.{n}"></a>' not in text]
    from tepad.schedule import Schedule, Stage
    for cls in (Stage, Schedule):
        missing += [f"tepad.schedule.{cls.__name__}.{n}" for n in vars(cls)
                    if not n.startswith("_") and callable(getattr(cls, n))
                    and f'<a id="tepad.schedule.{cls.__name__}.{n}"></a>' not in text]
    assert not missing, missing


def test_docs_are_current():
    """docs/*.md paste tepad output; docs/generate.py --check fails when it went stale."""
    p = subprocess.run([sys.executable, str(ROOT / "docs" / "generate.py"), "--check"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
