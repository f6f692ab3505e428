"""Tuners find a known best config in a small space. The measurement is replaced by a cost
function of the config (no building), so these tests check only the search."""
import math
import sys
import time

import pytest

from tepad import autotvm
from tepad.autotvm.result import MeasureErrorNo, MeasureResult
from tepad.autotvm.tuner import tuner as tuner_module

from . import templates  # noqa: F401 -- registers the templates


def _cost(cfg):
    """Best at ty = 8, tx = 16; smooth in log2 of the tile sizes."""
    ty, tx = cfg["ty"].size[1], cfg["tx"].size[1]
    return 1e-3 * (1 + (math.log2(ty) - 3) ** 2 + 0.5 * (math.log2(tx) - 4) ** 2)


class FakeBatch:
    def __init__(self, fail=()):
        self.fail = set(fail)
        self.seen = []

    def __call__(self, inputs):
        out = []
        for inp in inputs:
            self.seen.append(inp.config.index)
            if inp.config.index in self.fail:
                out.append(MeasureResult(("crash",), MeasureErrorNo.RUNTIME_DEVICE, 0.0,
                                         time.time(), "fake"))
            else:
                c = _cost(inp.config)
                out.append(MeasureResult((c,), MeasureErrorNo.NO_ERROR, 0.0, time.time(),
                                         "fake"))
        return out

    def close(self):
        pass


@pytest.fixture
def fake(monkeypatch):
    batch = FakeBatch()
    monkeypatch.setattr(tuner_module, "create_measure_batch", lambda task, opt: batch)
    return batch


OPTION = {"builder": autotvm.LocalBuilder(n_parallel=4), "runner": autotvm.LocalRunner()}


def _task():
    task = autotvm.task.create("test/tiles", args=(64,), target="llvm")
    assert len(task.config_space) == 49
    return task


def _best_index(task):
    return min(range(len(task.config_space)), key=lambda i: _cost(task.config_space.get(i)))


def test_grid_search_visits_every_config_in_order(fake):
    task = _task()
    t = autotvm.tuner.GridSearchTuner(task)
    t.tune(n_trial=100, measure_option=OPTION)
    assert fake.seen == list(range(49))
    assert t.best_config.index == _best_index(task)


def test_random_tuner_never_repeats_and_finds_the_best_in_the_whole_space(fake):
    task = _task()
    t = autotvm.tuner.RandomTuner(task, seed=3)
    t.tune(n_trial=49, measure_option=OPTION)
    assert sorted(fake.seen) == list(range(49)) and fake.seen != list(range(49))
    assert t.best_config.index == _best_index(task)


def test_ga_tuner_finds_the_best_in_part_of_the_space(fake):
    task = _task()
    t = autotvm.tuner.GATuner(task, pop_size=8, elite_num=2, seed=0)
    t.tune(n_trial=40, measure_option=OPTION)
    assert len(set(fake.seen)) == len(fake.seen) <= 40
    assert t.best_config.index == _best_index(task)


@pytest.mark.parametrize("feature_type", ["itervar", "knob"])
def test_xgb_tuner_finds_the_best_in_part_of_the_space(fake, feature_type):
    pytest.importorskip("xgboost", reason="XGBTuner needs the optional extra 'tune'")
    task = _task()
    t = autotvm.tuner.XGBTuner(task, plan_size=8, feature_type=feature_type, seed=0)
    t.tune(n_trial=32, measure_option=OPTION)
    assert len(set(fake.seen)) == len(fake.seen) <= 32
    assert t.best_config.index == _best_index(task)


def test_xgb_tuner_without_xgboost_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "xgboost", None)
    with pytest.raises(ImportError, match=r"tepad\[tune\]"):
        autotvm.tuner.XGBTuner(_task())


def test_early_stopping_and_errors_do_not_stop_the_loop(monkeypatch):
    task = _task()
    best = _best_index(task)
    batch = FakeBatch(fail=range(0, 49, 2))
    monkeypatch.setattr(tuner_module, "create_measure_batch", lambda task, opt: batch)
    t = autotvm.tuner.GridSearchTuner(task)
    t.tune(n_trial=49, measure_option=OPTION, early_stopping=8)
    # the best (index 31 = ty choice 3 + 7 * tx choice 4) is odd, so measured; the loop
    # stops at the first batch boundary (4 per batch) 8 trials after it: after 40 trials
    assert best == 31
    assert t.best_config.index == best and t.best_iter == 31
    assert len(batch.seen) == 40


def test_callbacks_see_every_batch(fake, tmp_path):
    task = _task()
    seen = []
    t = autotvm.tuner.RandomTuner(task, seed=1)
    import io
    buf = io.StringIO()
    t.tune(n_trial=10, measure_option=OPTION,
           callbacks=[lambda tu, i, r: seen.append(len(i)),
                      autotvm.callback.progress_bar(10, stream=buf),
                      autotvm.callback.log_to_file(str(tmp_path / "l.log"))])
    assert sum(seen) == 10 and max(seen) <= 4
    assert "(10/10)" in buf.getvalue() and "Done." in buf.getvalue()
    assert len((tmp_path / "l.log").read_text().splitlines()) == 10
