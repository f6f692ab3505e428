"""GPU sketches: structure of the steps, numerics of the default and random annotations
through the GPU emulator against numpy, the target's limits, replay from a tuning log, and
PTX that ptxas assembles (where ptxas is installed)."""
import json
import random
import subprocess

import numpy as np
import pytest

import tepad
from tepad import auto_scheduler, te
from tepad.auto_scheduler.compute_dag import ComputeDAG
from tepad.auto_scheduler.gpu_sketch import MAX_LOCAL, MAX_VTHREAD, GpuSketch, make_sketch
from tepad.auto_scheduler.loop_state import apply_steps
from tepad.auto_scheduler.sketch import Sketch
from tepad.codegen.nvptx_target import ptxas_path
from tepad.fuzz.auto_sched import generate_auto
from tepad.fuzz.case import Config
from tepad.fuzz.runner import run_source
from tepad.fuzz.sources import RandomSource

from .workloads import conv2d_nchw, elementwise_chain, matmul_add, softmax


def _np_inputs(tensors, rng):
    return {t: rng.uniform(-1, 1, size=[int(d) for d in t.shape]).astype(t.dtype)
            for t in tensors if isinstance(t.op, te.PlaceholderOp)}


def _run_emulated(dag, steps, rng):
    s, args, _ = apply_steps(dag, steps)
    f = tepad.build(s, args, target="cuda", emulate=True)
    ins = _np_inputs(args, rng)
    arrs = [tepad.nd.array(ins[t]) if t in ins else
            tepad.nd.empty([int(d) for d in t.shape], t.dtype) for t in args]
    f(*arrs)
    return ins, arrs[-1].numpy()


def _matmul_add_np(ins, tensors):
    a, b, c = (ins[t] for t in tensors[:3])
    return a @ b + c


def _conv_np(data, weight, pad):
    n, c, h, w = data.shape
    f, _, kh, kw = weight.shape
    p = np.pad(data, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, w + 2 * pad - kw + 1
    out = np.zeros((n, f, oh, ow), np.float64)
    for y in range(kh):
        for x in range(kw):
            out += np.einsum("ncij,fc->nfij", p[:, :, y:y + oh, x:x + ow], weight[:, :, y, x])
    return out


def _softmax_np(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_cuda_targets_get_the_gpu_sketch():
    dag = ComputeDAG(matmul_add(16, 32, 24, "float32"))
    assert isinstance(make_sketch(dag, "cuda"), GpuSketch)
    assert isinstance(make_sketch(dag, "llvm"), Sketch)
    task = auto_scheduler.SearchTask(func=matmul_add, args=(16, 32, 24, "float32"),
                                     target="cuda")
    assert isinstance(task.sketch, GpuSketch)


def test_matmul_sketch_fuses_the_consumer_and_tiles_sssrrsrs():
    dag = ComputeDAG(matmul_add(16, 32, 24, "float32"))
    sk = make_sketch(dag, "cuda")
    assert sk.plan == [("tiled", "matmul", ("out", ["A", "B"]))]
    assert [sk.tile_keys[k][1] for k in ("matmul/i", "matmul/j", "matmul/k")] == [5, 5, 3]
    steps = sk.steps(sk.default_params())
    kinds = [s[:3] for s in steps[1:5]]
    assert kinds == [["CHW", "matmul", "local"], ["CI", "matmul"],
                     ["CHR", "A", "shared"], ["CHR", "B", "shared"]]
    binds = [(s[1], s[2], s[3]) for s in steps if s[0] == "AN"]
    assert ("out", "i.0@j.0", "blockIdx.x") in binds
    assert ("out", "i.1@j.1", "vthread") in binds
    assert ("out", "i.2@j.2", "threadIdx.x") in binds
    assert ("A.shared", "ax0@ax1.1", "threadIdx.x") in binds
    assert ["CA", "matmul.local", "out", "i.2@j.2"] in steps
    assert ["CA", "A.shared", "matmul.local", "k.0"] in steps
    code = dag.print_python_code_from_state(sk.state(sk.default_params()))
    assert "s.cache_read(A, 'shared', [matmul_local])" in code
    assert "te.thread_axis('threadIdx.x')" in code


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matmul_states_compute_the_right_values_on_the_emulator(seed):
    tensors = matmul_add(16, 32, 24, "float32")
    dag = ComputeDAG(tensors)
    sk = make_sketch(dag, "cuda")
    rng = random.Random(seed)
    params = sk.default_params() if seed == 0 else sk.random_params(rng)
    ins, got = _run_emulated(dag, sk.steps(params), np.random.default_rng(seed))
    np.testing.assert_allclose(got, _matmul_add_np(ins, dag.tensors), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("seed", [0, 3])
def test_conv2d_with_inlined_padding_on_the_emulator(seed):
    tensors = conv2d_nchw(1, 4, 6, 6, 8, 3, 3, 1)
    dag = ComputeDAG(tensors)
    sk = make_sketch(dag, "cuda")
    assert sk.plan[-1] == ("inline", "pad", None)
    steps = sk.steps(sk.default_params() if seed == 0 else sk.random_params(random.Random(seed)))
    assert ["CHR", "pad", "shared", ["conv.local"], "pad.shared"] in steps
    ins, got = _run_emulated(dag, steps, np.random.default_rng(seed))
    data, weight = ins[tensors[0]], ins[tensors[1]]
    np.testing.assert_allclose(got, _conv_np(data, weight, 1), rtol=1e-4, atol=1e-4)


def test_elementwise_and_softmax_on_the_emulator():
    rng = np.random.default_rng(5)
    tensors = elementwise_chain(6, 40)
    dag = ComputeDAG(tensors)
    sk = make_sketch(dag, "cuda")
    assert [k for k, _, _ in sk.plan] == ["simple", "inline", "inline"]
    ins, got = _run_emulated(dag, sk.steps(sk.random_params(random.Random(1))), rng)
    a, b = ins[tensors[0]], ins[tensors[1]]
    np.testing.assert_allclose(got, np.maximum(a * 2 + b, 0.5) * b, rtol=1e-5)

    tensors = softmax(4, 32)
    dag = ComputeDAG(tensors)
    sk = make_sketch(dag, "cuda")
    ins, got = _run_emulated(dag, sk.steps(sk.default_params()), rng)
    np.testing.assert_allclose(got, _softmax_np(ins[tensors[0]]), rtol=1e-4, atol=1e-5)


def test_random_annotations_respect_the_target_limits():
    target = tepad.target.Target("cuda -max_num_threads=64 -max_shared_memory_per_block=2048")
    dag = ComputeDAG(matmul_add(64, 64, 64, "float32"))
    sk = make_sketch(dag, target)
    assert sk.max_threads == 64 and sk.max_shared == 2048
    rng = random.Random(0)
    params = [sk.random_params(rng) for _ in range(30)] + [sk.default_params()]
    params += [sk.mutate(p, rng) for p in params]
    for p in params:
        sp = [p["tile"][f"matmul/{a}"] for a in ("i", "j")]
        assert sp[0][2] * sp[1][2] <= 64
        assert sp[0][1] * sp[1][1] <= MAX_VTHREAD
        assert sp[0][3] * sp[0][4] * sp[1][3] * sp[1][4] <= MAX_LOCAL
        assert sk.shared_bytes("matmul", p["tile"]) <= 2048
        for key, (extent, levels) in sk.tile_keys.items():
            assert len(p["tile"][key]) == levels and np.prod(p["tile"][key]) == extent


def test_shared_estimate_of_a_matmul_tile():
    dag = ComputeDAG(matmul_add(64, 64, 64, "float32"))
    sk = make_sketch(dag, "cuda")
    tile = {"matmul/i": [2, 1, 4, 2, 4], "matmul/j": [4, 2, 2, 1, 1],
            "matmul/k": [8, 2, 4]}
    # A: 32 rows x 8 k; B: 8 k x 4 columns; float32
    assert sk.shared_bytes("matmul", tile) == (32 * 8 + 8 * 4) * 4


def test_gpu_tuning_logs_replay_and_print(tmp_path, monkeypatch):
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    log = str(tmp_path / "gpu.json")
    task = auto_scheduler.SearchTask(func=matmul_add, args=(16, 16, 16, "float32"),
                                     target="cuda")
    opt = auto_scheduler.TuningOptions(num_measure_trials=3, num_measures_per_round=3,
                                       measure_callbacks=[auto_scheduler.RecordToFile(log)],
                                       runner=auto_scheduler.LocalRunner(min_repeat_ms=1),
                                       verbose=0)
    task.tune(opt, search_policy=auto_scheduler.SketchPolicy(task, seed=0, verbose=0))
    rows = [json.loads(line) for line in open(log)]
    assert len(rows) == 3 and all(r["r"][1] == 0 for r in rows)
    assert any(s[0] == "CHR" for s in rows[0]["i"][1])
    sch, args = task.apply_best(log)
    f = tepad.build(sch, args, target="cuda", emulate=True)
    rng = np.random.default_rng(0)
    ins = _np_inputs(args, rng)
    arrs = [tepad.nd.array(ins[t]) if t in ins else tepad.nd.empty((16, 16)) for t in args]
    f(*arrs)
    np.testing.assert_allclose(arrs[-1].numpy(), _matmul_add_np(ins, args), rtol=1e-4,
                               atol=1e-4)
    code = task.print_best(log)
    assert "s[out].bind(" in code and "compute_at" in code
    namespace = {"te": te, "A": args[0], "B": args[1], "C": args[2], "out": args[3],
                 "matmul": task.compute_dag.op_by_name["matmul"].output(0)}
    exec(code, namespace)      # the printed code is a schedule that runs
    assert namespace["s"] is not None


PTXAS = ptxas_path()


@pytest.mark.skipif(PTXAS is None, reason="ptxas not found")
@pytest.mark.parametrize("make", ["matmul", "conv"])
def test_gpu_states_assemble_with_ptxas(make, tmp_path):
    tensors = matmul_add(32, 32, 32, "float32") if make == "matmul" else \
        conv2d_nchw(1, 8, 7, 7, 16, 3, 3, 1)
    dag = ComputeDAG(tensors)
    sk = make_sketch(dag, "cuda")
    rng = random.Random(4)
    for i, params in enumerate([sk.default_params(), sk.random_params(rng)]):
        s, args, _ = apply_steps(dag, sk.steps(params))
        ptx = tepad.build(s, args, target="cuda", emulate=False).get_source("ptx")
        path = tmp_path / f"k{i}.ptx"
        path.write_text(ptx)
        r = subprocess.run([PTXAS, "-arch=sm_90", str(path), "-o", str(tmp_path / "k.cubin")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def _gpu_auto_config():
    return Config(auto_scheduler_percent=100, max_stages=4, gpu=True)


def test_fuzzer_gpu_auto_cases_match_the_oracle_in_both_bound_modes():
    cfg = _gpu_auto_config()
    for i in range(12):
        out = run_source(RandomSource(f"auto-gpu-ci:{i}"), cfg, exact=True)
        assert out.status == "pass", (f"case {i}: {out.status} at {out.where}\n{out.detail}\n"
                                      f"{out.case.script(exact=True) if out.case else ''}")
        assert out.case.gpu


def test_fuzzer_gpu_auto_cases_cover_the_gpu_rules():
    cfg = _gpu_auto_config()
    seen = {r: 0 for r in ("cache_read", "'local'", "vthread", "threadIdx.x", "blockIdx.x",
                           "compute_inline", "auto_unroll_max_step")}
    for i in range(30):
        case = generate_auto(RandomSource(f"auto-gpu-rules:{i}"), cfg)
        sched = "\n".join(case.lines[case.sched_start:])
        for r in seen:
            seen[r] += r in sched
    assert all(seen.values()), seen


def test_default_schedule_for_cuda_is_the_gpu_sketch():
    a = te.placeholder((24, 20), name="a")
    b = te.placeholder((20, 16), name="b")
    k = te.reduce_axis((0, 20), name="k")
    c = te.compute((24, 16), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="c")
    s, args = auto_scheduler.default_schedule(c, "cuda")
    text = str(tepad.lower(s, args, simple_mode=True))
    assert "blockIdx.x" in text and "'shared'" in text and "'local'" in text
    f = tepad.build(s, args, target="cuda", emulate=True)
    rng = np.random.default_rng(2)
    an, bn = rng.uniform(size=(24, 20)).astype("float32"), rng.uniform(size=(20, 16)).astype(
        "float32")
    out = tepad.nd.empty((24, 16))
    f(tepad.nd.array(an), tepad.nd.array(bn), out)
    np.testing.assert_allclose(out.numpy(), an @ bn, rtol=1e-5)


def test_gpu_states_have_gpu_features():
    from tepad.auto_scheduler.cost_model import state_features
    dag = ComputeDAG(matmul_add(64, 64, 64, "float32"))
    sk = make_sketch(dag, "cuda")
    rng = random.Random(3)
    feats = [state_features(sk, sk.random_params(rng)) for _ in range(8)]
    assert len({len(f) for f in feats}) == 1
    # 3 tile keys of 5, 5, 3 levels, 8 per tiled stage, the unroll budget
    assert len(feats[0]) == 13 + 8 + 1
    tile = {"matmul/i": [2, 1, 4, 2, 4], "matmul/j": [4, 2, 2, 1, 1], "matmul/k": [8, 2, 4]}
    f = state_features(sk, {"tile": tile, "unroll": 0})
    assert f[13:19].tolist() == [3.0, 1.0, 3.0, 0.0, 3.0, 3.0]


@pytest.mark.skipif(PTXAS is None, reason="ptxas not found")
def test_fuzzer_gpu_auto_cases_assemble_with_ptxas(tmp_path):
    cfg = _gpu_auto_config()
    for i in range(10):
        case = generate_auto(RandomSource(f"auto-gpu-ptx:{i}"), cfg)
        args = [case.ns[t.name] for t in case.placeholders + case.outputs]
        ptx = tepad.build(case.ns["s"], args, target="cuda", emulate=False).get_source("ptx")
        path = tmp_path / f"k{i}.ptx"
        path.write_text(ptx)
        r = subprocess.run([PTXAS, "-arch=sm_90", str(path), "-o", str(tmp_path / "k.cubin")],
                           capture_output=True, text=True)
        assert r.returncode == 0, f"case {i}:\n{r.stderr}\n{case.script()}"


def test_cross_thread_reductions_on_the_emulator():
    rng = np.random.default_rng(9)
    a = te.placeholder((6, 50), name="a")
    k1 = te.reduce_axis((0, 6), name="k1")
    k2 = te.reduce_axis((0, 50), name="k2")
    total = te.compute((), lambda: te.sum(a[k1, k2], axis=[k1, k2]), name="total")
    dag = ComputeDAG([a, total])
    sk = make_sketch(dag, "cuda")
    assert sk.plan == [("xthread", "total", None)] and not sk.unsupported
    steps = sk.steps(sk.random_params(random.Random(0)))
    assert ["AN", "total", "k1@k2.1", "threadIdx.x"] in steps
    ins, got = _run_emulated(dag, steps, rng)
    np.testing.assert_allclose(got, ins[a].sum(), rtol=1e-4)

    tensors = softmax(3, 96)            # rows of 3 warps: max and sum across threads
    dag = ComputeDAG(tensors)
    sk = make_sketch(dag, "cuda")
    assert [k for k, _, _ in sk.plan] == ["simple", "xthread", "inline", "xthread"]
    for params in (sk.default_params(), sk.random_params(random.Random(2))):
        ins, got = _run_emulated(dag, sk.steps(params), rng)
        np.testing.assert_allclose(got, _softmax_np(ins[tensors[0]]), rtol=1e-4, atol=1e-6)
