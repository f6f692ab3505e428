"""The fuzzer's GPU mode (``Config(gpu=True)``, ``python -m tepad.fuzz --gpu``).

GPU schedules (blocks and threads, vthreads, shared/local caches with cooperative fetches,
cross-thread reductions) are built for ``"cuda"`` through the CPU emulator with its race check
and compared with ``tepad.testing.reference``, in interval and exact bound modes; illegal GPU
steps must be refused with a TepadError. The long runs are the CLI's (docs/fuzzing.md).
"""
import collections
import os

import pytest

from tepad.fuzz.generator import Config, RandomSource, ReplaySource, generate
from tepad.fuzz.gpu import GPU_ILLEGAL
from tepad.fuzz.runner import exact_available, run_source

GPU_CONFIG = Config(gpu=True, max_stages=4, illegal_rate=20)


def _failures(outcomes):
    return "\n\n".join(f"case {i}: {o.status} at {o.where}\n{o.detail}\n"
                       f"{o.case.script() if o.case else ''}"
                       for i, o in outcomes if o.failed)


@pytest.mark.slow
def test_gpu_fixed_seed_batch_both_bound_modes():
    counts = collections.Counter()
    outcomes = []
    for i in range(20):
        out = run_source(RandomSource(f"ci-gpu:{i}"), GPU_CONFIG, exact=True)
        counts[out.status] += 1
        outcomes.append((i, out))
    failures = _failures(outcomes)
    assert not failures, failures
    assert counts["pass"] >= 12, counts


@pytest.mark.slow
def test_gpu_illegal_steps_are_refused_with_tepad_error():
    cfg = Config(gpu=True, max_stages=3, illegal_rate=100, symbolic_percent=0)
    kinds = collections.Counter()
    outcomes = []
    for i in range(20):
        out = run_source(RandomSource(f"gpu-illegal:{i}"), cfg)
        outcomes.append((i, out))
        kinds.update(out.case.illegal)
    failures = _failures(outcomes)
    assert not failures, failures
    # a schedule may offer no step of the drawn kind (no shared tile, no inlined stage)
    assert sum(o.status == "refused" for _, o in outcomes) >= 6
    assert len(kinds) >= 3, kinds


@pytest.mark.slow
def test_gpu_draws_what_the_docs_promise():
    """Generation only (no build): the drawn schedules use every GPU feature named in
    tepad/fuzz/gpu.py, and every kind of illegal GPU step."""
    want = {"blockIdx.x": "'blockIdx.x'", "blockIdx.y": "'blockIdx.y'",
            "threadIdx.y": "'threadIdx.y'", "vthread": "'vthread'",
            "shared cache": "'shared', [", "local cache_read": "'local', [",
            "cache_write": ".cache_write(", "rfactor": "s.rfactor(",
            "store predicate": ".set_store_predicate(", "compute_at": ".compute_at(",
            "fuse (cooperative fetch)": ".fuse(", "nparts": "nparts="}
    missing = set(want)
    kinds = set()
    cfg = Config(gpu=True, max_stages=4, illegal_rate=30)
    for i in range(300):
        case = generate(RandomSource(f"gpu-draws:{i}"), cfg)
        text = "\n".join(case.lines)
        missing = {k for k in missing if want[k] not in text}
        kinds.update(case.illegal)
        if not missing and kinds >= set(GPU_ILLEGAL):
            break
    assert not missing, sorted(missing)
    assert kinds >= set(GPU_ILLEGAL), kinds


def test_gpu_mode_is_off_by_default_and_replays():
    assert Config().gpu is False
    case = generate(RandomSource("gpu-default:0"), Config(illegal_rate=0))
    assert not case.gpu and "target='cuda'" not in case.script()
    src = RandomSource("gpu-replay:5")
    a = generate(src, GPU_CONFIG)
    b = generate(ReplaySource(src.record), GPU_CONFIG)
    assert a.gpu and a.lines == b.lines and a.script() == b.script()


def test_gpu_reproducer_script_runs(monkeypatch):
    # the script asks for the emulator and its race check itself, whatever the environment
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    monkeypatch.delenv("TEPAD_CUDA_RACECHECK", raising=False)
    cfg = Config(gpu=True, max_stages=3, illegal_rate=0)
    for i in range(3):
        case = generate(RandomSource(f"gpu-script:{i}"), cfg)
        text = case.script(exact=exact_available())
        assert "target='cuda'" in text and "emulate=True, race_check=True" in text
        assert "os.environ" not in text
        exec(compile(text, f"<gpu case {i}>", "exec"), {})


def test_gpu_cases_leave_the_environment_alone(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    monkeypatch.setenv("TEPAD_CUDA_RACECHECK", "0")
    out = run_source(RandomSource("gpu-env:0"), Config(gpu=True, max_stages=2, illegal_rate=0))
    assert out.status in ("pass", "legal_refused", "refused"), out.detail
    assert "TEPAD_CUDA" not in os.environ
    assert os.environ["TEPAD_CUDA_RACECHECK"] == "0"


@pytest.mark.parametrize("kind", GPU_ILLEGAL)
def test_each_illegal_gpu_kind_is_refused(kind):
    cfg = Config(gpu=True, max_stages=3, illegal_rate=100, symbolic_percent=0)
    for i in range(200):
        case = generate(RandomSource(f"gpu-kind:{i}"), cfg)
        if kind in case.illegal:
            out = run_source(RandomSource(f"gpu-kind:{i}"), cfg)
            assert out.status == "refused", f"{out.status}: {out.detail}\n{out.case.script()}"
            return
    pytest.fail(f"no {kind} step drawn in 200 cases")



def test_gpu_case_without_barriers_is_caught():
    """The mode can fail: with thread_sync disabled, a case with a shared tile races (the
    emulator's race check is on), and with it the same case passes."""
    import tepad

    cfg = Config(gpu=True, max_stages=4, illegal_rate=0)
    assert run_source(RandomSource("mut:0"), cfg).status == "pass"
    with tepad.transform.PassContext(disabled_pass=["tir.ThreadSync"]):
        out = run_source(RandomSource("mut:0"), cfg)
    assert out.status == "legal_refused" and "data race" in out.detail, out.detail


# -- findings of the GPU fuzzer that are not fixed yet -------------------------------------------

def test_vthread_over_an_empty_exact_region_builds():
    import numpy as np

    import tepad
    from tepad import te, tir
    from tepad.testing import reference

    A = te.placeholder((4, 2), "float32", name="A")
    r = te.reduce_axis((0, 2), name="r")
    T1 = te.compute((3, 2), lambda i, j: te.min(A[i + r, j], axis=r), name="T1")
    # j < 2 always: T3 never reads T1
    T3 = te.compute((3, 2), lambda i, j: te.if_then_else(tir.all(i >= 1, j >= 2),
                                                         T1[i - 1, j - 2], 0.0), name="T3")
    s = te.create_schedule(T3.op)
    sh = s.cache_read(T1, "shared", [T3])
    s.cache_read(sh, "local", [T3])
    s[sh].set_scope("global")
    for st in (T3, T1):
        bx, tx = s[st].split(s[st].op.axis[0], factor=2)
        s[st].bind(bx, te.thread_axis("blockIdx.x"))
        s[st].bind(tx, te.thread_axis("threadIdx.x"))
    o, i = s[sh].split(s[sh].op.axis[1], factor=32)
    b, v = s[sh].split(o, factor=3)
    s[sh].bind(b, te.thread_axis("blockIdx.x"))
    s[sh].bind(v, te.thread_axis("vthread"))
    s[sh].bind(i, te.thread_axis("threadIdx.x"))
    a = np.random.default_rng(0).standard_normal((4, 2)).astype("float32")
    for exact in (False, True):
        mod = tepad.build(s, [A, T3], target="cuda", bounds_check=True, exact_bounds=exact,
                          emulate=True, race_check=True)
        out = np.ones((3, 2), "float32")
        mod(a, out)
        np.testing.assert_allclose(out, reference([T3], {A: a})[0])


def test_bound_root_stage_realized_from_a_negative_index():
    """A root stage whose consumer reads it at ``i - 1`` is realized from -1; a root axis
    bound to a thread directly must start at 0 (as TVM's MakeLoopNest requires: the thread
    index is not rebased), so the build refuses it with an error that says to split first,
    and the split-then-bind schedule it suggests builds and computes the right values."""
    import numpy as np

    import tepad
    from tepad import te
    from tepad.errors import TepadError
    from tepad.testing import reference

    def schedule(split):
        A = te.placeholder((2,), "float32", name="A")
        B = te.compute((2,), lambda i: A[i] * 2.0, name="B")
        C = te.compute((2,), lambda i: te.if_then_else(i >= 1, B[i - 1], 0.0), name="C")
        s = te.create_schedule(C.op)
        for t in (B, C):
            ax = s[t].op.axis[0]
            if split:
                ax, _ = s[t].split(ax, factor=1)
            s[t].bind(ax, te.thread_axis("blockIdx.x"))
        return s, A, C

    a = np.array([1.5, -2.0], "float32")
    for exact in (False, True):
        s, A, C = schedule(split=False)
        with pytest.raises(TepadError, match="split the axis before binding"):
            tepad.build(s, [A, C], target="cuda", bounds_check=True, exact_bounds=exact,
                        emulate=True, race_check=True)
        s, A, C = schedule(split=True)
        mod = tepad.build(s, [A, C], target="cuda", bounds_check=True, exact_bounds=exact,
                          emulate=True, race_check=True)
        out = np.zeros(2, "float32")
        mod(a, out)
        np.testing.assert_allclose(out, reference([C], {A: a})[0])


def test_exact_bounds_shared_tile_of_constant_size():
    import numpy as np

    import tepad
    from tepad import te
    from tepad.testing import reference

    A = te.placeholder((6,), "float32", name="A")
    B = te.compute((6,), lambda i: A[i] * 2.0, name="B")
    r = te.reduce_axis((0, 1), name="r")
    C = te.compute((6,), lambda i: te.sum(B[i + r], axis=r), name="C")
    s = te.create_schedule(C.op)
    BS = s.cache_read(B, "shared", [C])
    _, ki = s[C].split(r, factor=64)
    CF = s.rfactor(C, ki)
    bx, _ = s[C].split(s[C].op.axis[0], factor=1)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[CF].compute_at(s[C], s[C].op.reduce_axis[0])
    s[BS].compute_at(s[C], bx)
    s[B].compute_at(s[C], bx)
    a = np.arange(6).astype("float32")
    for exact in (False, True):
        mod = tepad.build(s, [A, C], target="cuda", bounds_check=True, exact_bounds=exact,
                          emulate=True, race_check=True)
        out = np.zeros(6, "float32")
        mod(a, out)
        np.testing.assert_allclose(out, reference([C], {A: a})[0])


def test_exact_bounds_shared_tile_inside_the_threads():
    import numpy as np

    import tepad
    from tepad import te
    from tepad.testing import reference

    B = te.placeholder((6,), "float32", name="B")
    r = te.reduce_axis((0, 2), name="r")
    T = te.compute((5,), lambda i: te.sum(B[i + r], axis=r), name="T")
    s = te.create_schedule(T.op)
    BS = s.cache_read(B, "shared", [T])
    bx, rest = s[T].split(T.op.axis[0], factor=8)
    tx, inner = s[T].split(rest, nparts=4)
    s[T].bind(bx, te.thread_axis("blockIdx.x"))
    s[T].bind(tx, te.thread_axis("threadIdx.x"))
    s[BS].compute_at(s[T], inner)
    b = np.arange(6).astype("float32")
    for exact in (False, True):
        mod = tepad.build(s, [B, T], target="cuda", bounds_check=True, exact_bounds=exact,
                          emulate=True, race_check=True)
        out = np.zeros(5, "float32")
        mod(b, out)
        np.testing.assert_allclose(out, reference([T], {B: b})[0])


def test_gpu_double_buffer_draws_are_off_by_default_and_compute_when_on():
    """``gpu_double_buffer_percent`` (default 0) draws no choice: a seed's case is the same
    program; on, a drawn double_buffer that inject_double_buffer doubles still computes what
    the reference computes under the race check."""
    import sys
    plain = generate(RandomSource("dbuf:True:31"), Config(gpu=True)).script()
    assert ".double_buffer()" not in plain
    assert generate(RandomSource("dbuf:True:31"),
                    Config(gpu=True, gpu_double_buffer_percent=0)).script() == plain
    mod = sys.modules["tepad.lower.passes.inject_double_buffer"]
    doubled = []
    real = mod._Inject.__init__

    def spy(self, plans, split):
        doubled.extend(plans)
        real(self, plans, split)
    mod._Inject.__init__ = spy
    try:
        out = run_source(RandomSource("dbuf:True:31"),
                         Config(gpu=True, gpu_double_buffer_percent=80))
    finally:
        mod._Inject.__init__ = real
    assert ".double_buffer()" in out.case.script()
    assert out.status == "pass", _failures([(31, out)])
    assert doubled
