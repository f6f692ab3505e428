"""The schedule fuzzer draws transform_layout (with and without padding) and rolling_buffer.

Fixed cases of a fixed config that certainly contain those calls (asserted on the generated
scripts), run differentially (interval and exact bounds, bounds-checked build, numpy oracle;
physical arrays in and out through ``tepad.layout``). If the generator changes so that a case
no longer contains the call it is listed for, pick new case numbers with the loop in
``_find`` below (the assertion message says so).
"""
import pytest
import numpy as np

from tepad.fuzz.generator import Config, RandomSource, generate
from tepad.fuzz.runner import run_source

CFG = Config(max_stages=4, illegal_rate=0, layout_percent=40)
SEED = "layout-ci"

# case numbers (of RandomSource(f"{SEED}:{i}") under CFG)
# (re-picked when rfactor, late cache_write, tensorize, pragma/prefetch/storage_align and
# create_group joined the fuzzer; rolling and attached layouts again for split's tail='shift')
PADDED_LAYOUT = [12, 23, 25, 31]     # splitting transform_layouts with a pad_value
ROLLING = [34, 250, 383]          # rolling_buffer
ATTACHED_LAYOUT = [3, 12, 32, 48]  # a stage with a transform_layout computed at a loop


def _has_padded_layout(case):
    return any(".transform_layout(" in l and "//" in l and "pad_value=" in l
               for l in case.lines)


def _has_rolling(case):
    return any(".rolling_buffer()" in l for l in case.lines)


def _find(pred, n=1500):   # pragma: no cover - helper to re-pick the case numbers
    return [i for i in range(n) if pred(generate(RandomSource(f"{SEED}:{i}"), CFG))]


def _check(i, pred, what):
    case = generate(RandomSource(f"{SEED}:{i}"), CFG)
    assert pred(case), f"case {i} no longer draws {what}; re-pick with _find()"
    out = run_source(RandomSource(f"{SEED}:{i}"), CFG, exact=True)
    assert out.status == "pass", f"case {i}: {out.status} at {out.where}\n{out.detail}\n" \
                                 f"{out.case.script(exact=True) if out.case else ''}"
    return case


@pytest.mark.slow
def test_padded_layouts_pass():
    for i in PADDED_LAYOUT:
        _check(i, _has_padded_layout, "a padded transform_layout")


@pytest.mark.slow
def test_rolling_buffers_pass():
    for i in ROLLING:
        _check(i, _has_rolling, "rolling_buffer")


def _has_attached_layout(case):
    staged = {l.split(".transform_layout(")[0].split("= ")[-1] for l in case.lines
              if ".transform_layout(" in l}
    return any(l.startswith(x + ".compute_at(") for x in staged for l in case.lines)


@pytest.mark.slow
def test_layouts_at_attach_points_pass():
    """Issue 19: transform_layout on a stage computed at a loop of its consumer is drawn as a
    legal step (the layout applies to the region realized there)."""
    for i in ATTACHED_LAYOUT:
        _check(i, _has_attached_layout, "a transform_layout on a stage computed at a loop")


def test_layout_reproducer_script_runs_standalone():
    case = generate(RandomSource(f"{SEED}:4437"), CFG)
    text = case.script(exact=True)
    assert "from_kernel(" in text and "to_kernel(" in text
    exec(compile(text, "<layout case>", "exec"), {})


def test_runner_passes_physical_arrays_and_checks_padding():
    """The layout helpers: sentinel in never-read input padding, pad_value checked on outputs."""
    from tepad import te
    from tepad.fuzz.layouts import namespace
    lay = namespace()
    A = te.placeholder((6,), "float32", name="A")
    B = te.compute((6,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(lambda i: [i // 4, i % 4])                  # padding: sentinel
    s[B].transform_layout(lambda i: [(i + 1) // 4, (i + 1) % 4], pad_value=-1.5)
    a = np.arange(6, dtype="float32")
    pa = lay["to_kernel"](s[A], a)
    assert pa.shape == (2, 4) and pa[1, 2] == 7777.0 and pa[1, 1] == 5.0
    pb = np.full((2, 4), -1.5, "float32")
    pb[0, 1:] = a[:3]
    pb[1, :3] = a[3:]
    got, problem = lay["from_kernel"](s[B], pb, (6,))
    np.testing.assert_array_equal(got, a)
    assert problem is None
    pb[1, 3] = 0.0
    _, problem = lay["from_kernel"](s[B], pb, (6,))
    assert "do not hold pad_value -1.5" in problem


@pytest.mark.slow
def test_layout_rates_in_default_config():
    """Layouts and rolling buffers are drawn, but the rest of the mix stays dominant."""
    n_layout = n_plain = 0
    for i in range(120):
        case = generate(RandomSource(f"rates:{i}"), Config())
        if any(".transform_layout(" in l for l in case.lines):
            n_layout += 1
        else:
            n_plain += 1
    assert 10 <= n_layout <= 50 and n_plain > 70, (n_layout, n_plain)
