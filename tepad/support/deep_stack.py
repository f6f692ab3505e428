"""Run lowering and code generation where deep IR cannot exhaust Python's stack.

tepad's IR walkers (visitors, mutators, the simplifier, codegen) recurse once per nesting
level. A pipeline whose stages are each computed inside the previous one's loops nests a
few statements per stage, so 50-100 such stages need several thousand Python frames: more than
Python's default recursion limit (1000) and, with the C frames some of them use, more than a
main thread's C stack can safely hold at a raised limit.

``deep_stack(fn)`` wraps an entry point (``tepad.lower``, ``tepad.build`` and the pipeline's
entries use it) so that its body runs in a worker thread with a ``STACK_BYTES`` stack and a
recursion limit of at least ``RECURSION_LIMIT``. What the caller sees:

* the same result or the same exception, raised again in the caller's thread: with its
  traceback, except a ``TepadError`` (a user mistake), which arrives from the entry point
  without tepad's internal frames or the exceptions it was raised from (``TEPAD_DEBUG=1``
  keeps them, see ``tepad.errors.debug_tracebacks``); nested wrapped calls run directly in
  the worker;
* the caller's thread-local settings hold in the worker: every setting registered with
  ``carry_thread_local`` is handed over: each ``support.context_stack.ContextStack`` (``with
  PassContext(...)``, ``with Target(...)``) registers itself, other modules register theirs
  (such as ``tepad.codegen.cache_disabled()``); user passes run in the worker thread;
* while any wrapped call runs, ``sys.getrecursionlimit()`` is at least ``RECURSION_LIMIT`` for
  the whole interpreter (Python has one limit for all threads); the caller's value is put back
  when the last wrapped call ends, unless someone changed it meanwhile.
  ``threading.stack_size()`` is changed only for the moment the worker starts, under a lock.
* likewise the garbage collector's first threshold is at least ``GC_YOUNG_THRESHOLD`` while a
  wrapped call runs: lowering allocates millions of short-lived, acyclic IR nodes, and at
  Python's default (700 allocations) the young-generation scans took 4-5 % of a 50-stage
  lower + build; the caller's thresholds are put back in the same way.
* Ctrl-C interrupts the caller's wait; the worker (a daemon thread) finishes on its own.
* Where the system refuses a thread with such a stack (a small address-space limit), the call
  runs directly in the caller's thread, with the caller's limits.

The cost is one thread start per top-level call (about 0.1 ms).
"""
from __future__ import annotations

import functools
import gc
import sys
import threading

from ..errors import TepadError, debug_tracebacks

STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 40_000
GC_YOUNG_THRESHOLD = 50_000

_in_worker = threading.local()
# (threading.local, attribute): thread-local settings a worker starts with the caller's value of
_CARRIED: list = []


def carry_thread_local(local: threading.local, attr: str):
    """Hand ``local.attr`` (a thread-local setting of the module that calls this, at import)
    from the caller to the worker thread. A list value is copied, so ``with`` blocks inside
    the worker leave the caller's list alone."""
    if not any(lo is local and a == attr for lo, a in _CARRIED):
        _CARRIED.append((local, attr))

_lock = threading.Lock()
_active = 0
_saved_limit = None
_saved_gc = None


def _raise_limits():
    """Raise the recursion limit and the GC's young threshold (first wrapped call only)."""
    global _active, _saved_limit, _saved_gc
    with _lock:
        if _active == 0:
            _saved_limit = sys.getrecursionlimit()
            if _saved_limit < RECURSION_LIMIT:
                sys.setrecursionlimit(RECURSION_LIMIT)
            _saved_gc = gc.get_threshold()
            if _saved_gc[0] < GC_YOUNG_THRESHOLD:
                gc.set_threshold(GC_YOUNG_THRESHOLD, *_saved_gc[1:])
        _active += 1


def _restore_limits():
    """Put back what ``_raise_limits`` changed when the last wrapped call ends, unless someone
    changed it meanwhile."""
    global _active
    with _lock:
        _active -= 1
        if _active:
            return
        if _saved_limit < RECURSION_LIMIT and sys.getrecursionlimit() == RECURSION_LIMIT:
            sys.setrecursionlimit(_saved_limit)
        if _saved_gc[0] < GC_YOUNG_THRESHOLD and \
                gc.get_threshold() == (GC_YOUNG_THRESHOLD, *_saved_gc[1:]):
            gc.set_threshold(*_saved_gc)


def _start(worker: threading.Thread) -> bool:
    """Start ``worker`` with a ``STACK_BYTES`` stack; False when the system refuses one
    (a small address-space limit): the caller then runs the call itself."""
    with _lock:
        old = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
            worker.start()
            return True
        except (RuntimeError, ValueError, OverflowError, MemoryError):
            return False
        finally:
            threading.stack_size(old)


def call_with_deep_stack(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` run as the module docstring describes; directly when already
    inside such a call."""
    if getattr(_in_worker, "active", False):
        return fn(*args, **kwargs)
    missing = object()
    carried = []
    for local, attr in _CARRIED:
        v = getattr(local, attr, missing)
        if v is not missing:
            carried.append((local, attr, list(v) if isinstance(v, list) else v))
    out = {}

    def work():
        _in_worker.active = True
        for local, attr, v in carried:
            setattr(local, attr, v)
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as e:      # handed to the caller's thread
            out["error"] = e

    worker = threading.Thread(target=work, name=f"tepad-{getattr(fn, '__name__', 'call')}",
                              daemon=True)
    _raise_limits()
    try:
        started = _start(worker)
        if started:
            worker.join()
    finally:
        _restore_limits()
    if not started:
        return fn(*args, **kwargs)
    if "error" in out:
        err = out.pop("error")
        try:
            if isinstance(err, TepadError) and not debug_tracebacks():
                # a user mistake: the message is the point, tepad's frames are noise
                raise err.with_traceback(None) from None
            raise err
        finally:
            del err
    return out["value"]


def deep_stack(fn):
    """Decorator: every call of ``fn`` goes through ``call_with_deep_stack``."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return call_with_deep_stack(fn, *args, **kwargs)

    return wrapper


__all__ = ["deep_stack", "call_with_deep_stack", "carry_thread_local", "STACK_BYTES",
           "RECURSION_LIMIT", "GC_YOUNG_THRESHOLD"]
