"""The code that runs in worker processes: building one candidate, measuring one candidate,
and the measuring worker's loop (started as ``python -c`` running ``_serve``).

The measuring worker is a fresh interpreter started with ``subprocess`` (never a fork of the
tuner: a kernel's OpenMP team must not be forked, and a spawned ``multiprocessing`` child would
re-run the user's unguarded script). It reads pickled jobs on stdin and answers on its own
copy of stdout; the kernels' own output goes to stderr.
"""
from __future__ import annotations

import faulthandler
import os
import pickle
import select
import subprocess
import sys
import time
import traceback

import numpy as np

from ..driver import build
from ..runtime.module import load_module
from ..runtime.timing import time_repeats
from .result import BuildResult, MeasureErrorNo
from .task.space import ConfigEntity, InstantiationError


# ---------------------------------------------------------------------------------------------
# building
# ---------------------------------------------------------------------------------------------
def quiet_child():
    """Build worker initializer: no faulthandler dump when a candidate kills the worker (the
    tuner reports the crash as the candidate's error)."""
    faulthandler.disable()


def build_candidate(task, config_json, path) -> BuildResult:
    """Instantiate ``task`` under the config ``config_json``, build it for the task's target
    and write the shared library to ``path``. Errors come back in the BuildResult."""
    t0 = time.time()
    try:
        config = ConfigEntity.from_json_dict(config_json)
        if task.func is None:
            raise RuntimeError(f"template {task.name} is not known in the build worker: a "
                               "spawned worker imports the module defining it, so define it in "
                               "an importable module (not __main__)")
        s, args = task.instantiate(config)
    except InstantiationError as err:
        return BuildResult(None, MeasureErrorNo.INSTANTIATION_ERROR, str(err), time.time() - t0)
    except Exception as err:  # noqa: BLE001 -- reported as the candidate's error
        return BuildResult(None, MeasureErrorNo.INSTANTIATION_ERROR,
                           f"{type(err).__name__}: {err}", time.time() - t0)
    try:
        mod = build(s, args, target=task.target)
        mod.export_library(path)
    except Exception as err:  # noqa: BLE001
        return BuildResult(None, MeasureErrorNo.COMPILE_HOST, f"{type(err).__name__}: {err}",
                           time.time() - t0)
    return BuildResult(path, MeasureErrorNo.NO_ERROR, None, time.time() - t0)


# ---------------------------------------------------------------------------------------------
# measuring
# ---------------------------------------------------------------------------------------------
_REF_CACHE = {}


def _reference(path):
    if path not in _REF_CACHE:
        with np.load(path) as data:
            _REF_CACHE.clear()
            _REF_CACHE[path] = {k: data[k] for k in data.files}
    return _REF_CACHE[path]


def measure_one(job) -> tuple:
    """Load, check and time one candidate: ``("ok", [seconds per call, one per repeat])``,
    ``("wrong", message)`` or ``("error", message)``."""
    try:
        mod = load_module(job["lib"])
        data = _reference(job["ref"])
        args = [np.array(data[f"arg{i}"], copy=True) for i in range(job["n_args"])]
        mod(*args)
        if job.get("save"):             # the default config's outputs become the reference
            np.savez(job["save"], **data, **{f"expect{i}": args[i] for i in job["outputs"]})
            return ("ok", [])
        for i in job["check"]:
            expect = data[f"expect{i}"]
            if not np.allclose(args[i], expect, rtol=job["rtol"], atol=job["atol"],
                               equal_nan=True):
                bad = int(np.count_nonzero(~np.isclose(args[i], expect, rtol=job["rtol"],
                                                       atol=job["atol"], equal_nan=True)))
                return ("wrong", f"argument {i}: {bad} of {expect.size} elements differ from "
                                 "the oracle")
        if job.get("clock") == "cpu" and hasattr(mod, "_native_block"):
            # CPU time of this process: what a kernel costs, not how long it waited for a core
            return ("ok", [float(x) for x in time_repeats(
                lambda: mod(*args), job["number"], job["repeat"], job["min_repeat_ms"],
                warmup=0, block=mod._native_block(args), clock=time.process_time)])
        ev = mod.time_evaluator(mod.entry_name, number=job["number"], repeat=job["repeat"],
                                min_repeat_ms=job["min_repeat_ms"])
        return ("ok", [float(x) for x in ev(*args).results])
    except Exception as err:  # noqa: BLE001 -- reported as the candidate's error
        return ("error", f"{type(err).__name__}: {err}")


def _serve():
    """The measuring worker: answer pickled jobs from stdin until EOF."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)                       # whatever kernels print goes to stderr
    sys.stdout = sys.stderr
    inp = sys.stdin.buffer
    pickle.dump(("ready", None), out)
    out.flush()
    while True:
        try:
            job = pickle.load(inp)
        except EOFError:
            return
        try:
            answer = measure_one(job)
        except BaseException:  # noqa: BLE001
            answer = ("error", traceback.format_exc(limit=3))
        pickle.dump(answer, out)
        out.flush()


_SERVE = "from tepad.autotvm.worker import _serve; _serve()"


class RunWorker:
    """A long-lived measuring worker process, restarted after a crash or a timeout."""

    START_TIMEOUT = 120

    def __init__(self):
        self.proc = None

    def _start(self):
        env = dict(os.environ)
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"]
                                    if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen([sys.executable, "-c", _SERVE],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                     cwd=root)
        status, _ = self._read(self.START_TIMEOUT)
        if status != "ready":
            self.stop()
            raise RuntimeError(f"the measuring worker did not start ({status})")

    def _read(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return ("timeout", None)
        try:
            return pickle.load(self.proc.stdout)
        except (EOFError, pickle.UnpicklingError):
            code = self.proc.wait(timeout=5)
            return ("crash", f"the measuring worker died (exit status {code}"
                             f"{', signal ' + str(-code) if code and code < 0 else ''})")

    def measure(self, job, timeout) -> tuple:
        """``measure_one(job)`` in the worker; ``("timeout", None)`` past ``timeout``
        seconds, ``("crash", message)`` when the worker dies; the worker is then replaced."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        try:
            pickle.dump(job, self.proc.stdin)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.stop()
            return ("crash", "the measuring worker died before the job was sent")
        status, payload = self._read(timeout)
        if status in ("timeout", "crash"):
            self.stop()
        return status, payload

    def stop(self):
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass

    def __del__(self):
        try:
            self.stop()
        except Exception:  # noqa: BLE001
            pass

