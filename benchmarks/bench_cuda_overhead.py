"""Per-call overhead of a CudaModule on the host, measured with a driver that launches
nothing: what a call costs besides the GPU's work (argument checks, grid evaluation, packing).

    python benchmarks/bench_cuda_overhead.py [--calls 20000]

Rows: the call with its per-signature plan (every call after the first with the same array
shapes), the call checked from scratch (the plan dropped each time), and two floors: the
driver's launch with packed arguments alone (Python), and a ctypes call of a C function with
cuLaunchKernel's 11 arguments (what one driver call costs from Python at least).
"""
from __future__ import annotations

import argparse
import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import tepad as tvm  # noqa: E402
from tepad import te  # noqa: E402
from tepad.runtime.cuda_driver import Driver, use_driver  # noqa: E402


class NullDriver(Driver):
    """Host memory, launches that do nothing."""

    def __init__(self):
        self.next, self.mem = 0x10000, {}

    def available(self, device_id): return device_id == 0
    def unavailable_reason(self): return "null driver"
    def compute_capability(self, device_id): return (9, 0)
    def activate(self, device_id): pass

    def mem_alloc(self, nbytes):
        p, self.next = self.next, self.next + (nbytes + 511) // 256 * 256
        self.mem[p] = (ctypes.c_char * max(nbytes, 1))()
        return p

    def mem_free(self, ptr): self.mem.pop(ptr, None)
    def copy_htod(self, dst, src, n): ctypes.memmove(self.mem[dst], src, n)
    def copy_dtoh(self, dst, src, n): ctypes.memmove(dst, self.mem[src], n)
    def load_module(self, ptx): return 1
    def get_function(self, module, name): return name
    def launch(self, function, grid, block, shared, args): pass
    def synchronize(self): pass


def per_call_us(fn, calls):
    fn()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls * 1e6


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=20000)
    a = ap.parse_args(argv)
    os.environ.pop("TEPAD_CUDA", None)
    with use_driver(NullDriver()) as drv:
        n = te.var("n")
        A = te.placeholder((n,), name="A")
        B = te.placeholder((n,), name="B")
        C = te.compute((n,), lambda i: A[i] + B[i], name="C")
        s = te.create_schedule(C.op)
        bx, tx = s[C].split(C.op.axis[0], factor=64)
        s[C].bind(bx, te.thread_axis("blockIdx.x"))
        s[C].bind(tx, te.thread_axis("threadIdx.x"))
        f = tvm.build(s, [A, B, C], target="cuda")
        dev = tvm.cuda(0)
        x, y, z = (tvm.nd.array(np.ones(4096, "float32"), dev) for _ in range(3))

        def unplanned():
            f._plans.clear()
            f(x, y, z)
        step = next(iter(f._plans.values()))[2][0] if (f(x, y, z) or f._plans) else None
        libc = ctypes.CDLL(None)
        snprintf = libc.snprintf
        rows = [("CudaModule call, planned (repeated signature)", per_call_us(lambda: f(x, y, z),
                                                                            a.calls)),
                ("CudaModule call, checked from scratch", per_call_us(unplanned,
                                                                    max(a.calls // 10, 100))),
                ("driver.launch with the packed arguments (Python floor)",
                 per_call_us(lambda: drv.launch(step.fn, step.grid, step.block, step.shared,
                                                step.packed), a.calls)),
                ("ctypes call with 11 arguments (snprintf(NULL, 0, ...))",
                 per_call_us(lambda: snprintf(None, 0, b"", 1, 2, 3, 4, 5, 6, 7, 8), a.calls))]
    print(f"per-call host overhead ({a.calls} calls; {os.uname().machine}, "
          f"{os.cpu_count()} CPUs)")
    for name, us in rows:
        print(f"  {name:58s} {us:8.2f} us")
    return rows


if __name__ == "__main__":
    main()
