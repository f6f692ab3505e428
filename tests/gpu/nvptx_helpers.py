"""Shared by the NVPTX / CUDA runtime tests: ptxas, schedules, a fake CUDA driver."""
import ctypes
import subprocess

import pytest

from tepad import te
from tepad.codegen.nvptx_target import ptxas_path
from tepad.runtime.cuda_driver import CudaBindingsDriver, Driver

PTXAS = ptxas_path()
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas not found: pip install "
                                 "nvidia-cuda-nvcc-cu12 (the test extra has it)")
requires_gpu = pytest.mark.skipif(not CudaBindingsDriver().available(0),
                                  reason="needs a CUDA GPU (the CUDA driver sees none here)")


def ptxas_ok(ptx: str, tmp_path, arch="sm_90"):
    """Assemble ``ptx`` with ptxas for ``arch``; fails the test with ptxas's message."""
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", str(path), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"ptxas rejected the PTX:\n{r.stderr}\n{ptx}"


def vadd_schedule(n=None, factor=64):
    n = te.var("n") if n is None else n
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=factor)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    return s, [A, B, C]


class FakeDriver(Driver):
    """A CUDA driver in host memory: allocations are bytearrays, launches are recorded (not
    run), events read a clock the test sets."""

    def __init__(self, devices=1, ms_per_launch=0.5):
        self.devices = devices
        self.mem = {}
        self.next_ptr = 0x10000
        self.launches, self.loaded, self.freed, self.events = [], [], [], []
        self.ms_per_launch = ms_per_launch
        self.clock_ms = 0.0
        self.synced = 0

    def available(self, device_id):
        return device_id < self.devices

    def unavailable_reason(self):
        return f"the fake driver has {self.devices} device(s)"

    def compute_capability(self, device_id):
        return (9, 0)

    def activate(self, device_id):
        assert device_id < self.devices

    def mem_alloc(self, nbytes):
        ptr = self.next_ptr
        self.next_ptr += (nbytes + 255) // 256 * 256 + 256
        self.mem[ptr] = (ctypes.c_char * max(nbytes, 1))()
        return ptr

    def mem_free(self, ptr):
        self.freed.append(ptr)
        self.mem.pop(ptr, None)

    def copy_htod(self, dst, src_host, nbytes):
        ctypes.memmove(self.mem[dst], src_host, nbytes)

    def copy_dtoh(self, dst_host, src, nbytes):
        ctypes.memmove(dst_host, self.mem[src], nbytes)

    def copy_dtod(self, dst, src, nbytes):
        ctypes.memmove(self.mem[dst], self.mem[src], nbytes)

    def load_module(self, ptx):
        self.loaded.append(ptx)
        return len(self.loaded)

    def get_function(self, module, name):
        assert f".entry {name}(" in self.loaded[module - 1]
        return name

    def launch(self, function, grid, block, shared_bytes, args):
        self.clock_ms += self.ms_per_launch
        self.launches.append((function, grid, block, shared_bytes, [a.value for a in args]))

    def synchronize(self):
        self.synced += 1

    def event_create(self):
        self.events.append(None)
        return len(self.events) - 1

    def event_record(self, event):
        self.events[event] = self.clock_ms

    def event_elapsed_ms(self, start, end):
        return self.events[end] - self.events[start]
