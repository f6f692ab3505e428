"""RayRunner on a local two-node Ray cluster: candidates spread over both nodes, each node
measuring its own one at a time, the log naming the node; faulty candidates are errors."""
import json
import os
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="RayRunner needs the optional extra 'ray'")
from ray.cluster_utils import Cluster  # noqa: E402

from tepad import autotvm  # noqa: E402
from tepad.autotvm.result import MeasureErrorNo  # noqa: E402

from . import templates  # noqa: F401,E402 -- registers the templates

ROOT = str(Path(__file__).resolve().parents[2])


@pytest.fixture(scope="module")
def cluster():
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = ROOT + (os.pathsep + old if old else "")   # the nodes' workers
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    c.add_node(num_cpus=1)
    ray.init(address=c.address, log_to_driver=False)
    try:
        yield c
    finally:
        ray.shutdown()
        c.shutdown()
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def test_ray_runner_spreads_candidates_over_two_nodes(cluster, tmp_path):
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    task = autotvm.task.create("test/faulty", args=(64,), target="llvm")
    log = str(tmp_path / "ray.log")
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(n_parallel=2),
                                    runner=autotvm.RayRunner(number=2, repeat=1, timeout=4))
    tuner = autotvm.tuner.GridSearchTuner(task)
    tuner.tune(n_trial=6, measure_option=option,
               callbacks=[autotvm.callback.log_to_file(log)])
    lines = [json.loads(x) for x in open(log)]
    codes = {x["config"]["entity"][0][2]: x["result"][1] for x in lines}
    assert codes == templates.FAULTY_CODES
    measured = [x["host"] for x in lines if x["result"][1] != MeasureErrorNo.INSTANTIATION_ERROR]
    assert len(set(measured)) == 2, measured          # host:node-id of both nodes
    assert tuner.best_config["mode"].val in ("ok", "ok2")
