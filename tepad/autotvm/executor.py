"""Running functions in worker processes with a time limit (TVM's
``autotvm.measure.executor`` and ``local_executor``).

``LocalExecutor.submit(func, *args)`` starts ``func`` in a new process and returns a
:class:`Future`; ``future.get()`` gives its return value, or -- returned, not raised --
:class:`TimeoutError` when the job ran past the executor's ``timeout`` (the process is killed)
and :class:`ExecutionError` when it raised. With ``do_fork=False`` the function runs at once
in this process (for runtimes that cannot fork).
"""
from __future__ import annotations

import multiprocessing
import queue as queue_module
import time

from ..errors import TepadError


class FutureError(RuntimeError):
    """What a future gives instead of a result."""


class TimeoutError(FutureError):  # noqa: A001 -- TVM's name
    """The job ran past its time limit (or ``get``'s wait ran out)."""


class ExecutionError(FutureError):
    """The job raised; ``message`` holds the error's text."""

    def __init__(self, message=""):
        super().__init__(message)
        self.message = message


class Future:
    """A job's result to come."""

    def done(self) -> bool:
        raise NotImplementedError

    def get(self, timeout=None):
        raise NotImplementedError


class Executor:
    """Runs jobs asynchronously."""

    DEFAULT_TIMEOUT = 120

    def submit(self, func, *args, **kwargs) -> Future:
        raise NotImplementedError


def _run_job(out, func, args, kwargs):
    try:
        res = func(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 -- any error of the job is its result
        res = ExecutionError(f"{type(err).__name__}: {err}")
    try:
        out.put(res)
    except Exception as err:  # noqa: BLE001 -- an unpicklable result
        out.put(ExecutionError(f"the result could not be sent back: {err}"))


class LocalFuture(Future):
    """The future of a job in a worker process that must finish by ``deadline``."""

    def __init__(self, process, out, deadline):
        self._process, self._queue, self._deadline = process, out, deadline
        self._result, self._has = None, False

    def _finish(self, result):
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        self._result, self._has = result, True
        return result

    def done(self) -> bool:
        if self._has:
            return True
        if not self._queue.empty():
            return True
        return time.monotonic() >= self._deadline or not self._process.is_alive()

    def get(self, timeout=None):
        """The job's result; :class:`TimeoutError` (returned) when the job's limit passed;
        raises :class:`TimeoutError` when ``timeout`` seconds of waiting ran out first."""
        if self._has:
            return self._result
        left = max(0.0, self._deadline - time.monotonic())
        wait = left if timeout is None else min(left, float(timeout))
        try:
            return self._finish(self._queue.get(block=True, timeout=wait))
        except queue_module.Empty:
            pass
        if time.monotonic() >= self._deadline:
            return self._finish(TimeoutError())
        if not self._process.is_alive():
            return self._finish(ExecutionError("the worker process died without a result "
                                               f"(exit code {self._process.exitcode})"))
        raise TimeoutError()


class LocalFutureNoFork(Future):
    """The future of a job that already ran in this process."""

    def __init__(self, result):
        self._result = result

    def done(self) -> bool:
        return True

    def get(self, timeout=None):
        return self._result


class LocalExecutor(Executor):
    """Runs each job in its own process (forked where the platform can), killing it after
    ``timeout`` seconds (``DEFAULT_TIMEOUT`` when None)."""

    def __init__(self, timeout=None, do_fork=True):
        self.timeout = float(timeout or Executor.DEFAULT_TIMEOUT)
        if self.timeout <= 0:
            raise TepadError(f"LocalExecutor: timeout must be positive, got {timeout}")
        self.do_fork = do_fork
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self._ctx = multiprocessing.get_context(method)

    def submit(self, func, *args, **kwargs) -> Future:
        if not self.do_fork:
            try:
                return LocalFutureNoFork(func(*args, **kwargs))
            except Exception as err:  # noqa: BLE001 -- as the forked path reports it
                return LocalFutureNoFork(ExecutionError(f"{type(err).__name__}: {err}"))
        out = self._ctx.Queue(2)
        process = self._ctx.Process(target=_run_job, args=(out, func, args, kwargs),
                                    daemon=True)
        process.start()
        return LocalFuture(process, out, time.monotonic() + self.timeout)
