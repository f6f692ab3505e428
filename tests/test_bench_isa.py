"""``--isa avx2`` of the benchmarks (``benchmarks/isa.py``): every tool builds AVX2 code,
tepad's kernels keep matching numpy under the AVX2 target and their assembly has no AVX-512,
the peers accept the ISA, and the targets are judged from the figures."""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tepad
from tepad import autotvm, te
from tepad.autotvm.result import MeasureErrorNo, MeasureInput, MeasureResult

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))
import bench_plain  # noqa: E402
import bench_tune  # noqa: E402
import isa  # noqa: E402

HOST = {k for k, v in tepad.target.host_features().items() if v}   # $TEPAD_HOST_TARGET's
needs_avx2 = pytest.mark.skipif(not {"avx2", "fma"} <= HOST, reason="host without AVX2+FMA")


def test_worker_env_pins_numpy_for_avx2_and_clears_overrides_for_host():
    env = {"OPENBLAS_CORETYPE": "Zen", "OPENBLAS_L2_SIZE": "512", "KEEP": "1"}
    avx2 = isa.worker_env("avx2", env)
    assert avx2["OPENBLAS_CORETYPE"] == "Haswell" and "X86_V4" in avx2["NPY_DISABLE_CPU_FEATURES"]
    assert avx2[isa.ENV] == "avx2" and avx2["KEEP"] == "1" and "OPENBLAS_L2_SIZE" not in avx2
    host = isa.worker_env("host", env)
    assert "OPENBLAS_CORETYPE" not in host and host[isa.ENV] == "host" and host["KEEP"] == "1"
    with pytest.raises(ValueError, match="known: host, avx2"):
        isa.worker_env("avx1024", env)


@needs_avx2
def test_avx2_target_widths():
    t = isa.tepad_target("avx2")
    assert (t.vector_lanes("float32"), t.vector_registers) == (8, 16)
    assert isa.tepad_target("host") is None


def test_avx512_operands_are_found():
    asm = "vfmadd231ps %zmm1, %zmm2, %zmm3\nvaddps %ymm17, %ymm1, %ymm2\nkmovw %k1, %eax\n" \
          "vbroadcastss (%rax){1to16}, %zmm0\nvaddps %ymm15, %xmm0, %ymm1"
    assert isa.avx512_in(asm) == ["%k1", "%ymm17", "%zmm0", "%zmm1", "%zmm2", "%zmm3", "{1to16}"]
    assert isa.avx512_in("vaddps %ymm15, %ymm0, %ymm1\nvmovups %xmm3, (%rdi)") == []
    isa.check_assembly("vaddps %zmm1, %zmm2, %zmm3", "host code", "host")   # not checked
    with pytest.raises(AssertionError, match="AVX-512 in code built for avx2: %zmm1"):
        isa.check_assembly("vaddps %zmm1, %zmm1, %zmm1", "a kernel", "avx2")


@needs_avx2
@pytest.mark.parametrize("key", ["W2", "W4"])
def test_avx2_kernels_match_numpy_without_avx512(monkeypatch, key):
    # kernels() checks each tepad kernel against numpy and its assembly for AVX-512
    monkeypatch.setenv(isa.ENV, "avx2")
    with isa.target_scope():
        fns = bench_plain.kernels(key, bench_plain.SMALL[key], peers=False)
    assert {"plain", "expert", "numpy"} <= set(fns)


@pytest.mark.skipif("avx512f" not in HOST, reason="host without AVX-512: nothing to catch")
def test_the_assembly_check_catches_host_code(monkeypatch):
    # built for this AVX-512 host (no target scope) but checked as avx2: refused
    monkeypatch.setenv(isa.ENV, "avx2")
    with pytest.raises(AssertionError, match="tepad W2 plain: AVX-512"):
        bench_plain.kernels("W2", bench_plain.SMALL["W2"], peers=False)


@needs_avx2
def test_templates_default_to_the_targets_widths():
    t = isa.tepad_target("avx2")
    w2 = autotvm.task.create("w2/matmul", args=(64,), target=t)
    w4 = autotvm.task.create("w4/conv2d", args=(8, 8, 10, 12), target=t)
    c2, c4 = w2.config_space.get(0), w4.config_space.get(0)     # the default config
    assert (c2["bn"].val, c2["rows"].val, c2["kb"].val) == (24, 4, 0)
    assert (c4["fb"].val, c4["xb"].val, c4["rc_inner"].val) == (16, 4, 1)
    host = autotvm.task.create("w2/matmul", args=(64,), target="llvm").config_space.get(0)
    avx512 = "avx512f" in HOST
    assert (host["bn"].val, host["kb"].val) == ((32, 0) if avx512 else (24, 0))


@needs_avx2
def test_tuned_schedule_takes_the_logged_config_of_the_target(monkeypatch):
    t = isa.tepad_target("avx2")
    name, args = bench_tune.FULL_ARGS["W2"]
    task = autotvm.task.create(name, args=args, target=t)
    cfg = task.config_space.get(5)
    rec = (MeasureInput(t, task, cfg),
           MeasureResult((0.01,), MeasureErrorNo.NO_ERROR, 0.1, time.time(), "h"))
    with t:
        s, a, text = bench_plain.tuned_schedule("W2", [rec])
    assert text == ", ".join(f"{k}={v}" for k, v in cfg._entity_map.items())
    assert isinstance(s, te.Schedule) and len(a) == 3
    with t:
        assert bench_plain.tuned_schedule("W5", [rec]) is None      # no record of W5


def test_targets_table_judges_each_target():
    res = {"W2": {"plain": 30.0, "expert": 12.0, "tuned": 11.0, "numpy": 10.0,
                  "tvm: a": 20.0, "halide: b": 28.0},
           "W5": {"plain": 0.05, "expert": 0.04, "numpy": 0.5, "tvm: a": 0.03}}
    rows = {tuple(c.strip() for c in r.split("|")[1:3]): r.split("|")[5:7]
            for r in bench_plain.targets_table(res).splitlines()[2:]}
    assert [c.strip() for c in rows[("W2", "tuned >= 0.9x OpenBLAS")]] == ["0.91x", "yes"]
    assert [c.strip() for c in rows[("W2", "plain within 1.1x of the best peer")]] == \
        ["0.67x", "no"]
    assert [c.strip() for c in rows[("W5", "tepad >= TVM")]] == ["0.75x", "no"]
    assert ("W3", "tepad >= Halide") not in rows


@pytest.mark.parametrize("peer", ["tvm", "halide"])
def test_peer_scripts_build_avx2_code(peer):
    if importlib.util.find_spec(peer) is None:
        pytest.skip(f"{peer} not installed")
    env = isa.worker_env("avx2")
    env.update(TVM_NUM_THREADS="1", HL_NUM_THREADS="1")
    r = subprocess.run([sys.executable, str(BENCH / "peers" / f"bench_{peer}.py"), "--small",
                        "INFO", "W1"], capture_output=True, text=True, env=env, timeout=300)
    recs = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    info = next(x for x in recs if x["workload"] == "INFO")
    assert info["isa"] == "avx2" and "512" not in info["target"]
    w1 = [x for x in recs if x["workload"] == "W1"]
    # the variant built, passed its numpy check and its AVX-512-free assembly check
    assert w1 and all("median_s" in x for x in w1), r.stdout[-2000:] + r.stderr[-2000:]


@needs_avx2
@pytest.mark.parametrize("key", sorted(bench_plain.PLAIN))
def test_plain_schedules_built_for_avx2_match_numpy(key):
    assert bench_plain.check_plain(key, isa="avx2") <= bench_plain.WL[key].tol


def test_isa_section_says_what_it_measured_and_keeps_the_host_section(tmp_path):
    res = {"W5": {"plain": 0.05, "expert": 0.04, "numpy": 0.5, "tvm: a": 0.03}}
    info = dict(date="today", cpu=dict(name="CPU", llvm_cpu="znver5", features=["avx512f"],
                                       cores=2), peers="peers: x", blas="kernel=Haswell",
                load=(0.5, 0.7), numpy_simd="X86_V4 off", tuned_configs={},
                host_blas_kernel="kernel=SkylakeX")
    a = argparse.Namespace(isa="avx2", threads=1, clock="cpu", procs=3, rounds=5, only="",
                           tuned_log=None)
    text = bench_plain.isa_markdown(res, info, a)
    assert "AVX2 code run on this AVX-512 host" in text and "kernel=Haswell" in text
    assert "| W5 | tepad >= TVM | 0.030 | 0.040 | 0.75x | no |" in text
    p = tmp_path / "R.md"
    p.write_text("\n".join([bench_plain.SECTION, "", bench_plain.BEGIN, "host", bench_plain.END]))
    bench_plain.write_section(p, text, "avx2")
    bench_plain.write_section(p, text.replace("today", "tomorrow"), "avx2")
    out = p.read_text()
    assert "host" in out and out.count("## AVX2 code on this host") == 1 and "tomorrow" in out
