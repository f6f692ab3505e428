"""Logs in TVM's JSON-lines format, pick_best and apply_history_best (no measuring: records
are made by hand)."""
import json
import time

import numpy as np
import pytest

import tepad
from tepad import autotvm
from tepad.autotvm import record
from tepad.autotvm.result import MeasureErrorNo, MeasureInput, MeasureResult
from tepad.autotvm.task.space import FallbackConfigEntity

from . import templates  # noqa: F401 -- registers the templates


def _records(task, costs):
    """One (input, result) per config index in ``costs`` ({index: seconds or None=error})."""
    out = []
    for i, c in costs.items():
        inp = MeasureInput(task.target, task, task.config_space.get(i))
        if c is None:
            res = MeasureResult(("boom",), MeasureErrorNo.RUNTIME_DEVICE, 0.1, time.time(), "h1")
        else:
            res = MeasureResult((c, c), MeasureErrorNo.NO_ERROR, 0.1, time.time(), "h1")
        out.append((inp, res))
    return out


def test_a_record_line_has_tvms_fields_and_the_host():
    task = autotvm.task.create("test/matmul", args=(16, 16, 16, "float32"), target="llvm")
    [(inp, res)] = _records(task, {3: 0.5})
    line = json.loads(record.encode(inp, res))
    assert line["input"] == ["llvm", "test/matmul", [16, 16, 16, "float32"], {}]
    assert line["config"]["index"] == 3
    assert line["config"]["entity"] == [["tile_y", "sp", [-1, 8]], ["tile_x", "sp", [-1, 1]]]
    assert line["result"][:2] == [[0.5, 0.5], 0]
    assert line["version"] == 0.2 and line["host"] == "h1"
    [(_, bad)] = _records(task, {1: None})
    assert json.loads(record.encode(inp, bad))["result"][:2] == [[1e9], 4]


def test_round_trip_through_a_file(tmp_path):
    task = autotvm.task.create("test/matmul", args=(16, 16, 16, "float32"), target="llvm")
    recs = _records(task, {0: 0.3, 5: None, 9: 0.1})
    path = tmp_path / "log.json"
    cb = autotvm.callback.log_to_file(str(path))
    cb(None, [r[0] for r in recs], [r[1] for r in recs])
    back = list(record.load_from_file(str(path)))
    assert len(back) == 3
    for (inp, res), (inp2, res2) in zip(recs, back):
        assert inp2.config == inp.config and inp2.config.index == inp.config.index
        assert inp2.task.workload == task.workload
        assert res2.error_no == res.error_no and res2.host == "h1"
        assert str(inp2.target) == "llvm"


def test_tvm_written_lines_are_read():
    line = ('{"input": ["llvm -keys=cpu", "tutorial/matmul", [512, 512, 512, "float32"], {}], '
            '"config": {"index": 33, "code_hash": null, "entity": [["tile_y", "sp", [-1, 8]], '
            '["tile_x", "sp", [-1, 8]]]}, "result": [[0.0123], 0, 1.2, 1700000000.0], '
            '"version": 0.2, "tvm_version": "0.13.0"}')
    inp, res = record.decode(line)
    assert inp.task.name == "tutorial/matmul" and inp.config["tile_x"].size == [-1, 8]
    assert res.costs == (0.0123,) and res.error_no == 0 and res.host == ""
    assert record.decode("not json") is None


def test_pick_best_keeps_the_fastest_error_free_record(tmp_path):
    task = autotvm.task.create("test/matmul", args=(16, 16, 16, "float32"), target="llvm")
    recs = _records(task, {0: 0.3, 5: None, 9: 0.1, 2: 0.2})
    best = record.pick_best(recs, str(tmp_path / "best.log"))
    assert [r[0].config.index for r in best.values()] == [9]
    assert len(list(record.load_from_file(str(tmp_path / "best.log")))) == 1


def test_apply_history_best_gives_the_template_the_best_config(tmp_path):
    task = autotvm.task.create("test/matmul", args=(16, 16, 16, "float32"), target="llvm")
    path = str(tmp_path / "log.json")
    cb = autotvm.callback.log_to_file(path)
    recs = _records(task, {0: 0.3, 5: None, 13: 0.05, 2: 0.2})
    cb(None, [r[0] for r in recs], [r[1] for r in recs])
    with autotvm.apply_history_best(path) as ctx:
        cfg = ctx.query(tepad.target.Target("llvm"), task.workload)
        assert cfg.index == 13
        with tepad.target.Target("llvm"):
            s, args = templates.matmul(16, 16, 16, "float32")
        f = tepad.build(s, args)
    a = np.random.rand(16, 16).astype("float32")
    b = np.random.rand(16, 16).astype("float32")
    c = np.zeros((16, 16), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)
    # the best config's tiles are in the lowered loops: index 13 = 3 + 5 * 2 (16 has five factors)
    best = task.config_space.get(13)
    assert best["tile_y"].size == [-1, 8] and best["tile_x"].size == [-1, 4]
    script = tepad.lower(s, args)["main"].script()
    assert "in range(4)" in script and "in range(8)" in script
    assert "in range(2)" in script        # 16 / 8 outer tiles of y
    # another workload falls back
    with autotvm.apply_history_best(path) as ctx:
        other = ctx.query(None, ("test/matmul", 32, 32, 32, "float32"))
        assert isinstance(other, FallbackConfigEntity)


def test_history_contexts_nest_and_prefer_the_same_target(tmp_path):
    task = autotvm.task.create("test/matmul", args=(16, 16, 16, "float32"), target="llvm")
    other = autotvm.task.create("test/matmul", args=(32, 32, 32, "float32"), target="llvm")
    recs = _records(task, {1: 0.2, 2: 0.1})
    # the same workload measured for another -mcpu: the faster record, but another target
    skx = tepad.target.Target("llvm -mcpu=skylake")
    fast = (MeasureInput(skx, task, task.config_space.get(4)),
            MeasureResult((0.01,), 0, 0.1, time.time(), "h2"))
    with autotvm.apply_history_best(recs + [fast]) as outer:
        assert outer.query(tepad.target.Target("llvm"), task.workload).index == 2
        assert outer.query(skx, task.workload).index == 4
        # a target with no record of its own takes the best of its kind
        assert outer.query(tepad.target.Target("llvm -mcpu=znver3"), task.workload).index == 4
        with autotvm.apply_history_best(_records(other, {3: 0.5})):
            cur = autotvm.DispatchContext.current
            assert cur.query(tepad.target.Target("llvm"), other.workload).index == 3
            # not in the inner log: the outer context answers
            assert cur.query(tepad.target.Target("llvm"), task.workload).index == 2
        assert autotvm.DispatchContext.current is outer


def test_tophub_context_holds_only_extra_files(tmp_path):
    task = autotvm.task.create("test/matmul", args=(16, 16, 16, "float32"), target="llvm")
    llvm = tepad.target.Target("llvm")
    with autotvm.tophub.context(llvm) as ctx:      # nothing downloaded: the fallback config
        assert isinstance(ctx.query(llvm, task.workload), FallbackConfigEntity)
    path = str(tmp_path / "log.json")
    recs = _records(task, {4: 0.3, 7: 0.1})
    autotvm.callback.log_to_file(path)(None, [r[0] for r in recs], [r[1] for r in recs])
    with autotvm.tophub.context(["llvm"], extra_files=[path]) as ctx:
        assert ctx.query(llvm, task.workload).index == 7
    with pytest.raises(tepad.TepadError, match="tophub.context"):
        autotvm.tophub.context(None)
