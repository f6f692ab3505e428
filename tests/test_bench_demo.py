"""benchmarks/bench_demo.py: the demo's matmul against numpy per ISA; each ISA's worker gets
its host target and numpy pins, and a worker's kernel matches numpy."""
import sys
from pathlib import Path

import pytest

import tepad

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))
import bench_demo  # noqa: E402

HOST = {k for k, on in tepad.target.host_features().items() if on}


def test_worker_env_sets_the_host_target_and_the_threads():
    env = {"TEPAD_HOST_TARGET": "x86-64", "OPENBLAS_CORETYPE": "Zen", "OPENBLAS_L2_SIZE": "1",
           "OPENBLAS_NUM_THREADS": "8", "KEEP": "1"}
    avx2 = bench_demo.worker_env("avx2", 1, env)
    assert avx2["TEPAD_HOST_TARGET"] == "haswell" and avx2["OPENBLAS_CORETYPE"] == "Haswell"
    assert avx2["TEPAD_NUM_THREADS"] == avx2["OPENBLAS_NUM_THREADS"] == "1"
    assert "OPENBLAS_L2_SIZE" not in avx2 and avx2["KEEP"] == "1"
    host = bench_demo.worker_env("host", 0, env)
    assert "TEPAD_HOST_TARGET" not in host and "OPENBLAS_CORETYPE" not in host
    assert "OPENBLAS_NUM_THREADS" not in host and "TEPAD_NUM_THREADS" not in host


@pytest.mark.skipif(not {"avx2", "fma"} <= HOST, reason="host without AVX2+FMA")
def test_an_avx2_worker_builds_avx2_code_that_matches_numpy(monkeypatch):
    for k, v in bench_demo.worker_env("avx2", 1).items():
        monkeypatch.setenv(k, v)
    r = bench_demo.run_worker(128, 2, "cpu")
    assert r["isa"] == "avx2" and r["host"].startswith("haswell")
    assert (r["lanes"], r["registers"]) == (8, 16) and "4x24 register block" in r["title"]
    assert r["tepad_ms"] > 0 and r["numpy_ms"] > 0


def test_the_section_names_the_cpu_and_both_isas():
    class A:
        n, threads, clock, procs, rounds = 1024, 1, "cpu", 3, 15
    rows = [dict(isa=i, host=h, lanes=l, registers=g, tepad_ms=t, tepad_min_ms=t, numpy_ms=m,
                 numpy_min_ms=m, blas="kernel=K") for i, h, l, g, t, m in
            (("host", "znver5", 16, 32, 5.0, 6.0), ("avx2", "haswell (...)", 8, 16, 9.0, 8.0))]
    info = dict(date="today", cpu=dict(name="AMD EPYC", llvm_cpu="znver5", cores=2,
                                       features=["avx2"]), load=(0.5, 0.6))
    text = bench_demo.render(rows, info, A)
    assert text.startswith(bench_demo.SECTION) and text.rstrip().endswith(bench_demo.END)
    assert "AMD EPYC (LLVM `znver5`" in text and "| host | `znver5`" in text
    assert "| 1.20x |" in text and "| 0.89x |" in text
