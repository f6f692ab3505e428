"""tepad's thread pool for parallel loops: chunks drawn from one atomic counter by the calling
thread and by whichever workers are awake, so the caller never waits for a worker that has no
core.

A kernel's parallel loop (``parallel.py``) calls ``tepad_pool_run(chunk_fn, closure, n, helpers)``
through its module's ``tepad_parallel_hook`` global (``attach`` fills it when a Module is made;
null: the loop runs serially on the calling thread). ``tepad_pool_run``:

* takes the pool's lock without waiting (a nested parallel loop, or a second Python thread
  calling a parallel kernel while one runs, finds it taken and runs its chunks itself);
* publishes the job: ``word`` = (generation << 32) | next chunk. Workers claim chunk ``c`` by a
  compare-and-swap of ``word`` from the value they read the job with, so a worker that read an
  older job's description can never claim a chunk of a newer one (its CAS fails);
* wakes sleeping workers (a futex on Linux), then claims chunks itself (atomic add) until none
  are left, and waits only until every *claimed* chunk has finished (``done == n``): a worker
  that did not wake in time claims nothing and is never waited for;
* returns the first non-zero status a chunk returned (later chunks are skipped, not run).

Workers (ids 1.., one Python daemon thread each, inside ``tepad_pool_worker`` with the GIL
released) spin briefly after a job, yield, then sleep until the next job. Worker ``id`` joins a
job only when ``id <= helpers`` (the kernel's thread count minus one: ``TEPAD_NUM_THREADS``).

The runtime is LLVM IR compiled once per process; its engine is never freed (workers run in its
code until the process exits). After ``fork`` the child has no workers: its parallel loops run on
the calling thread until a Module made in the child starts them again.
"""
from __future__ import annotations

import ctypes
import os
import platform
import sys
import threading

from .jit import JitModule
from .symbols import POOL_HOOK_SYMBOL

# Idle workers pause this many times (~20-40 ns each) after a job before they start to yield,
# then yield the CPU this many times, then sleep until the next job: back-to-back calls find
# them awake, a machine with busy cores gets its CPU back within ~0.1 ms.
SPIN_PAUSES = 4096
SPIN_YIELDS = 64
# The caller, waiting for claimed chunks to finish, yields every this many pauses (the worker
# it waits for may share its core).
WAIT_YIELD_EVERY = 256

_CLOSED = 0xFFFFFFFF
_lock = threading.Lock()
_state = {"jit": None, "run": 0, "worker": None, "started": 0}


def _pause() -> str:
    m = platform.machine().lower()
    if m in ("x86_64", "amd64", "i686", "i386"):
        return "call void @llvm.x86.sse2.pause()", "declare void @llvm.x86.sse2.pause()"
    if m in ("aarch64", "arm64"):
        return "call void @llvm.aarch64.hint(i32 1)", "declare void @llvm.aarch64.hint(i32)"
    return "", ""


def _futex_number():
    """The futex syscall number on this Linux host (None elsewhere: workers poll instead)."""
    if not sys.platform.startswith("linux"):
        return None
    return {"x86_64": 202, "amd64": 202, "aarch64": 98, "arm64": 98}.get(
        platform.machine().lower())


def pool_ir() -> str:
    """The pool runtime's LLVM IR for this host."""
    pause, pause_decl = _pause()
    nr = _futex_number()
    if nr is not None:
        # FUTEX_WAIT_PRIVATE (128) while pool_seq == seq0; FUTEX_WAKE_PRIVATE (129) all
        wait = ("%seq64 = zext i32 %seq0 to i64\n  "
                f"%fw = call i64 (i64, ...) @syscall(i64 {nr}, ptr @pool_seq, i64 128, "
                "i64 %seq64, ptr null, ptr null, i64 0)")
        wake = (f"%fk = call i64 (i64, ...) @syscall(i64 {nr}, ptr @pool_seq, i64 129, "
                "i64 2147483647)")
    else:
        wait = "%fw = call i32 @usleep(i32 200)"
        wake = ""
    return f"""
@pool_word = global i64 {_CLOSED}, align 64
@pool_fn = global ptr null, align 64
@pool_closure = global ptr null
@pool_n = global i64 0
@pool_helpers = global i32 0
@pool_done = global i64 0, align 64
@pool_status = global i32 0, align 64
@pool_lock = global i32 0, align 64
@pool_gen = global i64 0
@pool_seq = global i32 0, align 64
@pool_sleepers = global i32 0, align 64

declare i64 @syscall(i64, ...)
declare i32 @sched_yield()
declare i32 @usleep(i32)
{pause_decl}

define internal void @relax() {{
  {pause}
  ret void
}}

define internal i32 @run_chunk(ptr %fn, ptr %cl, i64 %c) {{
entry:
  %failed = load atomic i32, ptr @pool_status monotonic, align 4
  %ok = icmp eq i32 %failed, 0
  br i1 %ok, label %run, label %done
run:
  %st = call i32 %fn(ptr %cl, i64 %c)
  %bad = icmp ne i32 %st, 0
  br i1 %bad, label %record, label %done
record:
  %x = cmpxchg ptr @pool_status, i32 0, i32 %st monotonic monotonic
  br label %done
done:
  %d = atomicrmw add ptr @pool_done, i64 1 release
  ret i32 0
}}

define i32 @tepad_pool_run(ptr %fn, ptr %cl, i64 %n, i32 %helpers) {{
entry:
  %lk = cmpxchg ptr @pool_lock, i32 0, i32 1 acquire monotonic
  %got = extractvalue {{ i32, i1 }} %lk, 1
  br i1 %got, label %publish, label %serial

serial:
  %si = phi i64 [0, %entry], [%si1, %serial.next]
  %smore = icmp slt i64 %si, %n
  br i1 %smore, label %serial.body, label %serial.end
serial.body:
  %sst = call i32 %fn(ptr %cl, i64 %si)
  %sbad = icmp ne i32 %sst, 0
  br i1 %sbad, label %serial.fail, label %serial.next
serial.next:
  %si1 = add i64 %si, 1
  br label %serial
serial.fail:
  ret i32 %sst
serial.end:
  ret i32 0

publish:
  %g0 = load i64, ptr @pool_gen
  %g1 = add i64 %g0, 1
  %g32 = and i64 %g1, 4294967295
  %base = shl i64 %g32, 32
  %closed = or i64 %base, {_CLOSED}
  store atomic i64 %closed, ptr @pool_word seq_cst, align 8
  store i64 %g1, ptr @pool_gen
  store atomic ptr %fn, ptr @pool_fn release, align 8
  store atomic ptr %cl, ptr @pool_closure release, align 8
  store atomic i64 %n, ptr @pool_n release, align 8
  store atomic i32 %helpers, ptr @pool_helpers release, align 4
  store atomic i64 0, ptr @pool_done release, align 8
  store atomic i32 0, ptr @pool_status release, align 4
  store atomic i64 %base, ptr @pool_word seq_cst, align 8
  %sq = atomicrmw add ptr @pool_seq, i32 1 seq_cst
  %sleepers = load atomic i32, ptr @pool_sleepers seq_cst, align 4
  %anyone = icmp sgt i32 %sleepers, 0
  %want = icmp sgt i32 %helpers, 0
  %wake = and i1 %anyone, %want
  br i1 %wake, label %wakeup, label %claim
wakeup:
  {wake}
  br label %claim

claim:
  %w = atomicrmw add ptr @pool_word, i64 1 monotonic
  %c = and i64 %w, 4294967295
  %mine = icmp ult i64 %c, %n
  br i1 %mine, label %work, label %wait
work:
  %r = call i32 @run_chunk(ptr %fn, ptr %cl, i64 %c)
  br label %claim

wait:
  %k = phi i64 [0, %claim], [%k1, %wait.next]
  %d = load atomic i64, ptr @pool_done acquire, align 8
  %all = icmp eq i64 %d, %n
  br i1 %all, label %finish, label %wait.spin
wait.spin:
  %k1 = add i64 %k, 1
  %kk = and i64 %k1, {WAIT_YIELD_EVERY - 1}
  %y = icmp eq i64 %kk, 0
  br i1 %y, label %wait.yield, label %wait.pause
wait.yield:
  %yy = call i32 @sched_yield()
  br label %wait.next
wait.pause:
  call void @relax()
  br label %wait.next
wait.next:
  br label %wait

finish:
  store atomic i64 %closed, ptr @pool_word seq_cst, align 8
  %st = load atomic i32, ptr @pool_status acquire, align 4
  store atomic i32 0, ptr @pool_lock release, align 4
  ret i32 %st
}}

define void @tepad_pool_worker(i32 %id) {{
entry:
  br label %look

look:
  %idle = phi i64 [0, %entry], [0, %did], [%idle1, %relaxed], [0, %woke], [0, %recheck.changed], [0, %lost]
  %w = load atomic i64, ptr @pool_word acquire, align 8
  %c = and i64 %w, 4294967295
  %open = icmp ne i64 %c, {_CLOSED}
  br i1 %open, label %read, label %rest
read:
  %fn = load atomic ptr, ptr @pool_fn acquire, align 8
  %cl = load atomic ptr, ptr @pool_closure acquire, align 8
  %n = load atomic i64, ptr @pool_n acquire, align 8
  %h = load atomic i32, ptr @pool_helpers acquire, align 4
  %allowed = icmp sle i32 %id, %h
  %left = icmp ult i64 %c, %n
  %go = and i1 %allowed, %left
  br i1 %go, label %try, label %rest
try:
  %w1 = add i64 %w, 1
  %x = cmpxchg ptr @pool_word, i64 %w, i64 %w1 seq_cst monotonic
  %won = extractvalue {{ i64, i1 }} %x, 1
  br i1 %won, label %run, label %lost
lost:
  br label %look
run:
  %r = call i32 @run_chunk(ptr %fn, ptr %cl, i64 %c)
  br label %did
did:
  br label %look

rest:
  %idle1 = add i64 %idle, 1
  %spin = icmp ult i64 %idle1, {SPIN_PAUSES}
  br i1 %spin, label %pause, label %rest.more
pause:
  call void @relax()
  br label %relaxed
rest.more:
  %yielding = icmp ult i64 %idle1, {SPIN_PAUSES + SPIN_YIELDS}
  br i1 %yielding, label %yield, label %sleep
yield:
  %yy = call i32 @sched_yield()
  br label %relaxed
relaxed:
  br label %look

sleep:
  %seq0 = load atomic i32, ptr @pool_seq seq_cst, align 4
  %s1 = atomicrmw add ptr @pool_sleepers, i32 1 seq_cst
  %w2 = load atomic i64, ptr @pool_word seq_cst, align 8
  %same = icmp eq i64 %w2, %w
  br i1 %same, label %block, label %recheck.changed
recheck.changed:
  %s2 = atomicrmw sub ptr @pool_sleepers, i32 1 seq_cst
  br label %look
block:
  {wait}
  %s3 = atomicrmw sub ptr @pool_sleepers, i32 1 seq_cst
  br label %woke
woke:
  br label %look
}}
"""


def _runtime():
    """Compile the pool runtime once; its engine is kept alive for the process's life."""
    if _state["jit"] is None:
        jit = JitModule(pool_ir())
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(jit))    # never freed: workers run in it
        _state["run"] = jit.address("tepad_pool_run")
        _state["worker"] = ctypes.CFUNCTYPE(None, ctypes.c_int32)(
            jit.address("tepad_pool_worker"))
        _state["jit"] = jit
    return _state


def run_address() -> int:
    """Address of ``tepad_pool_run`` (compiling the runtime on first use)."""
    with _lock:
        return _runtime()["run"]


def ensure_workers(n: int) -> int:
    """Start workers until there are ``n`` (ids 1..n); returns how many there are."""
    with _lock:
        st = _runtime()
        while st["started"] < n:
            st["started"] += 1
            t = threading.Thread(target=st["worker"], args=(st["started"],), daemon=True,
                                 name=f"tepad-pool-{st['started']}")
            t.start()
        return st["started"]


def attach(code, num_threads: int) -> bool:
    """Point the ``tepad_parallel_hook`` of a loaded kernel (``code``: a ``JitModule`` or a
    loaded library, anything with ``global_address``) at the pool, with ``num_threads - 1``
    workers started. Returns whether the kernel has parallel loops."""
    addr = code.global_address(POOL_HOOK_SYMBOL) if hasattr(code, "global_address") else 0
    if not addr:
        return False
    run = run_address()
    if num_threads > 1:
        ensure_workers(num_threads - 1)
    ctypes.c_void_p.from_address(addr).value = run
    return True


def _after_fork_in_child():
    # the child has only the forking thread: no workers, and a lock held by another thread
    # of the parent would stay held
    _state["started"] = 0
    if _state["jit"] is not None:
        for name in ("pool_lock", "pool_sleepers"):
            a = _state["jit"].global_address(name)
            if a:
                ctypes.c_int32.from_address(a).value = 0
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


__all__ = ["attach", "ensure_workers", "run_address", "pool_ir", "SPIN_PAUSES", "SPIN_YIELDS"]
