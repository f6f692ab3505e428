"""Checks a CudaModule makes around its launches, with a fake driver: CUDA's grid and block
limits (named kernel), arrays the noalias kernels must not share, the base alignment vector
accesses assume, checked (blocking) launches from a target option, and the per-signature
plan that skips re-checking and re-packing on repeated calls."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te
from tepad.errors import TepadError
from tepad.runtime.cuda_driver import use_driver
from tepad.runtime.cuda_module import MAX_GRID, check_launch_limits, describe_launch

from .nvptx_helpers import FakeDriver, vadd_schedule


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    monkeypatch.delenv("TEPAD_CUDA_LAUNCH_BLOCKING", raising=False)
    monkeypatch.delenv("CUDA_LAUNCH_BLOCKING", raising=False)
    with use_driver(FakeDriver()) as d:
        yield d


def _arrays(n, k=3, dtype="float32"):
    return [tvm.nd.array(np.ones(n, dtype), tvm.cuda(0)) for _ in range(k)]


def test_limits_per_dimension_and_total():
    desc = describe_launch("k", (1, 1, 1), (1, 1, 1), 0)
    check_launch_limits("m", desc, (MAX_GRID[0], 65535, 65535), (1024, 1, 1))
    check_launch_limits("m", desc, (1, 1, 1), (16, 1, 64))
    for grid, block, what in [((2 ** 31, 1, 1), (1, 1, 1), "gridDim.x = 2147483648"),
                              ((1, 65536, 1), (1, 1, 1), "gridDim.y = 65536"),
                              ((1, 1, 65536), (1, 1, 1), "gridDim.z = 65536"),
                              ((1, 1, 1), (1025, 1, 1), "blockDim.x = 1025"),
                              ((1, 1, 1), (1, 1025, 1), "blockDim.y = 1025"),
                              ((1, 1, 1), (1, 1, 65), "blockDim.z = 65"),
                              ((1, 1, 1), (64, 32, 1), "64x32x1 = 2048 threads")]:
        with pytest.raises(TepadError, match=f"module m: kernel k .*{what}"):
            check_launch_limits("m", desc, grid, block)


def test_a_grid_too_tall_is_refused_before_launching(fake):
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    by, tx = s[B].split(B.op.axis[0], factor=1)
    s[B].bind(by, te.thread_axis("blockIdx.y"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    f = tvm.build(s, [A, B], target="cuda", name="tall")
    a, b = _arrays(70000, 2)
    with pytest.raises(TepadError, match=r"module tall: kernel tall_kernel \(grid 1x70000x1.*"
                                         r"gridDim.y = 70000 exceeds CUDA's limit 65535"):
        f(a, b)
    assert fake.launches == []
    a, b = _arrays(100, 2)
    f(a, b)
    assert fake.launches[0][1] == (1, 100, 1)


def test_maxntid_for_known_thread_extents(fake):
    s, args = vadd_schedule(factor=128)
    assert ".maxntid 128, 1, 1" in tvm.build(s, args, target="cuda").get_source("ptx")


def test_one_array_as_input_and_output_is_refused(fake):
    f = tvm.build(*vadd_schedule(), target="cuda", name="vadd")
    a, b, c = _arrays(64)
    with pytest.raises(TepadError, match="argument 0 'A' and argument 2 'C' are the same device "
                                         "array.*noalias"):
        f(a, b, a)
    assert fake.launches == []
    f(a, a, c)                         # the same array read twice is fine
    assert len(fake.launches) == 1


class MisalignedDriver(FakeDriver):
    """Allocations 4 bytes past a 16-byte boundary (as a sub-allocator could hand out)."""

    def __init__(self):
        super().__init__()
        self.next_ptr += 4


def _vector_double(n=1024):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=4)
    bx, tx = s[B].split(xo, factor=64)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[B].vectorize(xi)
    return tvm.build(s, [A, B], target="cuda", name="vdouble")


def test_vector_kernels_need_16_byte_aligned_arrays(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    with use_driver(MisalignedDriver()) as d:
        f = _vector_double()
        assert "ld.global.nc.v4" in f.get_source("ptx") or "ld.global.v4" in f.get_source("ptx")
        a, b = _arrays(1024, 2)
        with pytest.raises(TepadError, match=r"kernel vdouble_kernel .* uses 16-byte vector "
                                             r"accesses.*not on a 16-byte boundary"):
            f(a, b)
        assert d.launches == []
        g = tvm.build(*vadd_schedule(), target="cuda")     # scalar accesses: any alignment
        g(*_arrays(64))
        assert len(d.launches) == 1


def test_launch_blocking_from_the_target_and_the_environment(fake, monkeypatch):
    s, args = vadd_schedule(factor=32)
    f = tvm.build(s, args, target="cuda -launch_blocking=1")
    assert f.launch_blocking
    f(*_arrays(64))
    f(*_arrays(64))
    assert fake.synced == 2               # after each launch
    g = tvm.build(*vadd_schedule(factor=16), target="cuda")
    assert not g.launch_blocking
    g(*_arrays(64))
    assert fake.synced == 2
    monkeypatch.setenv("CUDA_LAUNCH_BLOCKING", "1")
    assert tvm.build(*vadd_schedule(factor=8), target="cuda").launch_blocking
    s, args = vadd_schedule(factor=4)
    plain = tvm.build(s, args, target="cuda")
    monkeypatch.delenv("CUDA_LAUNCH_BLOCKING")
    again = tvm.build(s, args, target="cuda")       # not the module built under the switch
    assert plain.launch_blocking and not again.launch_blocking


def test_repeated_calls_use_the_plan(fake, monkeypatch):
    f = tvm.build(*vadd_schedule(), target="cuda", name="vadd")
    checks = []
    real = f._checker.check_call
    monkeypatch.setattr(f._checker, "check_call", lambda arrays: checks.append(1) or real(arrays))
    a, b, c = _arrays(1000)
    for _ in range(3):
        f(a, b, c)
    assert len(checks) == 1 and len(fake.launches) == 3
    assert fake.launches[0] == fake.launches[2]
    d, e, g = _arrays(1000)                          # same signature, other arrays
    f(d, e, g)
    assert len(checks) == 1 and fake.launches[-1][4] == [d.data_ptr, e.data_ptr, g.data_ptr, 1000]
    f(*_arrays(500))                                  # a new signature: checked, planned
    assert len(checks) == 2 and fake.launches[-1][1] == (8, 1, 1)
    with pytest.raises(TepadError, match="argument 2 'C'"):
        f(a, b, tvm.nd.empty((999,), "float32", tvm.cuda(0)))
    with pytest.raises(TepadError, match="same device array"):
        f(a, b, a)


def test_host_scratch_is_not_planned(fake):
    A = te.placeholder((256,), name="A")
    B = te.compute((256,), lambda i: A[i] * 2, name="B")
    C = te.compute((256,), lambda i: B[i] + 1, name="C")
    s = te.create_schedule(C.op)
    for T in (B, C):
        bx, tx = s[T].split(T.op.axis[0], factor=128)
        s[T].bind(bx, te.thread_axis("blockIdx.x"))
        s[T].bind(tx, te.thread_axis("threadIdx.x"))
    f = tvm.build(s, [A, C], target="cuda")
    a, c = _arrays(256, 2)
    f(a, c)
    f(a, c)
    assert f._plans == {} and len(fake.launches) == 4
    assert fake.launches[0][4][1] != a.data_ptr       # each call its own scratch


def test_overhead_benchmark_runs(monkeypatch):
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_cuda_overhead.py"
    spec = importlib.util.spec_from_file_location("bench_cuda_overhead", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    rows = mod.main(["--calls", "50"])
    assert [name.split(",")[0] for name, _ in rows][:2] == ["CudaModule call"] * 2
    assert all(us > 0 for _, us in rows)
