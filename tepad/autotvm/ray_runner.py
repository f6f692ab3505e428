"""``RayRunner``: candidates measured across the nodes of a Ray cluster (``pip install
'tepad[ray]'``).

One measuring actor per node (pinned to it), each with a concurrency of one, so every node
measures its own share of a batch one candidate at a time while the nodes work in parallel.
An actor runs each candidate in its own ``worker.RunWorker`` process, so a crashing or hanging
kernel costs that worker, not the actor. The shared library and the reference data travel as
bytes (nodes share no files); every result names the node that measured it
(``host:node-id``), and the log keeps it.
"""
from __future__ import annotations

import os
import socket
import tempfile
import time

from ..errors import TepadError
from .measure import Runner, result_of
from .result import MeasureErrorNo, MeasureResult
from .worker import RunWorker

_TEPAD_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MISSING_RAY = "RayRunner needs the optional package ray: pip install 'tepad[ray]'"


def _import_ray():
    try:
        import ray           # optional extra 'ray'
    except ImportError as err:
        raise ImportError(MISSING_RAY) from err
    return ray


class NodeMeasurer:
    """The per-node actor's body: keeps the reference data, measures one library at a time."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="tepad_ray_")
        self.worker = RunWorker()
        self.refs = {}
        try:
            import ray       # optional extra 'ray'
            node = ray.get_runtime_context().get_node_id()[:8]
        except Exception:  # noqa: BLE001
            node = "?"
        self.where = f"{socket.gethostname()}:{node}"

    def node(self) -> str:
        return self.where

    def measure(self, lib_bytes, ref_key, ref_bytes, job, timeout):
        """``(status, payload, where)`` for one candidate (see ``worker.measure_one``)."""
        if ref_key not in self.refs:
            path = os.path.join(self.dir, f"ref_{len(self.refs)}.npz")
            with open(path, "wb") as f:
                f.write(ref_bytes)
            self.refs[ref_key] = path
        lib = os.path.join(self.dir, "cand.so")
        with open(lib, "wb") as f:
            f.write(lib_bytes)
        job = dict(job, lib=lib, ref=self.refs[ref_key])
        status, payload = self.worker.measure(job, timeout)
        return status, payload, self.where


class RayRunner(Runner):
    """A runner fanning each batch out over a Ray cluster: ``address=None`` starts (or joins)
    a local Ray instance, ``address="auto"`` or ``"ray://host:port"`` a cluster. ``nodes``
    limits the number of nodes used (default: all alive nodes). Timing arguments as
    LocalRunner's."""

    def __init__(self, address=None, timeout=10, number=4, repeat=3, min_repeat_ms=0,
                 cooldown_interval=0.1, enable_cpu_cache_flush=False, check_correctness=True,
                 nodes=None, ray_init_kwargs=None, **kwargs):
        self.ray = _import_ray()
        super().__init__(timeout, number, repeat, min_repeat_ms, cooldown_interval,
                         enable_cpu_cache_flush, check_correctness, **kwargs)
        if not self.ray.is_initialized():
            kwargs = dict(ray_init_kwargs or {})
            if address is None:
                # a local instance: its workers import this tepad (a source checkout too)
                kwargs.setdefault("runtime_env", {"env_vars": {"PYTHONPATH": _TEPAD_ROOT}})
            self.ray.init(address=address, **kwargs)
        self.max_nodes = nodes
        self.actors = {}           # node id -> actor handle
        self._ref_key = None
        self._ref_obj = None
        self._actor_cls = self.ray.remote(num_cpus=0, max_concurrency=1)(NodeMeasurer)

    def _node_ids(self) -> list:
        ids = sorted(n["NodeID"] for n in self.ray.nodes() if n.get("Alive"))
        if not ids:
            raise TepadError("RayRunner: the Ray cluster has no alive node")
        return ids[:self.max_nodes] if self.max_nodes else ids

    def _actor(self, node_id):
        if node_id not in self.actors:
            strategy = self.ray.util.scheduling_strategies.NodeAffinitySchedulingStrategy(
                node_id=node_id, soft=False)
            self.actors[node_id] = self._actor_cls.options(
                scheduling_strategy=strategy).remote()
        return self.actors[node_id]

    def set_task(self, task, ref):
        super().set_task(task, ref)
        with open(ref["path"], "rb") as f:
            self._ref_obj = self.ray.put(f.read())
        self._ref_key = f"{ref['path']}:{time.time()}"

    def run(self, measure_inputs, build_results) -> list:
        nodes = self._node_ids()
        pending = []
        for k, b in enumerate(build_results):
            node = nodes[k % len(nodes)]
            with open(b.filename, "rb") as f:
                lib = f.read()
            fut = self._actor(node).measure.remote(lib, self._ref_key, self._ref_obj, self.job(b),
                                                   self.timeout)
            pending.append((node, fut, time.time(), b))
        out = []
        for node, fut, t0, b in pending:
            try:
                status, payload, where = self.ray.get(fut, timeout=self.timeout * 4 + 60)
                out.append(result_of(status, payload, time.time() - t0 + b.time_cost, where,
                                     self.timeout))
            except Exception as err:  # noqa: BLE001 -- an actor lost; the next one is new
                actor = self.actors.pop(node, None)
                if actor is not None:
                    self.ray.kill(actor)
                out.append(MeasureResult((f"{type(err).__name__}: {err}",),
                                         MeasureErrorNo.RUNTIME_DEVICE, time.time() - t0,
                                         time.time(), f"ray:{node[:8]}"))
        return out

    def close(self):
        for a in self.actors.values():
            try:
                self.ray.kill(a)
            except Exception:  # noqa: BLE001
                pass
        self.actors = {}
