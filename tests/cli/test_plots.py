"""Every picture command writes a non-empty PNG (matplotlib is one of the test extras)."""
from pathlib import Path

import pytest

from tepad import cli

import matplotlib  # noqa: F401 - a test dependency: missing, this file fails to import

EX = Path(__file__).resolve().parents[2] / "examples"
PNG = b"\x89PNG\r\n\x1a\n"


def _png(path):
    data = Path(path).read_bytes()
    assert data[:8] == PNG and len(data) > 1000
    return data


def test_bounds_plot(tmp_path, capsys):
    out = tmp_path / "b.png"
    assert cli.main(["bounds", str(EX / "maxpool_rolling.py"), "--stage", "B", "--plot",
                     str(out)]) == 0
    _png(out)


def test_bounds_plot_1d_root(tmp_path, capsys):
    out = tmp_path / "c.png"
    assert cli.main(["bounds", str(EX / "padded_conv1d.py"), "--stage", "B", "--no-exact",
                     "--plot", str(out)]) == 0
    _png(out)


def test_layout_png(tmp_path, capsys):
    out = tmp_path / "l.png"
    assert cli.main(["layout", str(EX / "row_summation.py"), "--stage", "A", "--png",
                     str(out)]) == 0
    _png(out)


def test_graph_png_matplotlib(tmp_path, capsys):
    out = tmp_path / "g.png"
    assert cli.main(["graph", str(EX / "conv2d.py"), "--png", str(out), "--matplotlib"]) == 0
    _png(out)


def test_missing_matplotlib_message(tmp_path, capsys, monkeypatch):
    import builtins
    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(name)
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", fake)
    code = cli.main(["layout", str(EX / "row_summation.py"), "--png", str(tmp_path / "x.png")])
    assert code == cli.MISSING_MPL
    assert "pip install matplotlib" in capsys.readouterr().err


# ------------------------------------------------------------------ what the pictures show
def _sched(name):
    return cli.load_schedule(str(EX / f"{name}.py"))[1]


def _chain(n):
    from tepad import te
    A = te.placeholder((64, 64), "float32", name="A")
    t = A
    for k in range(n):
        t = te.compute((64, 64), lambda i, j, t=t: t[i, j] + 1.0, name=f"S{k}")
    return te.create_schedule(t.op)


@pytest.mark.parametrize("n", [2, 14, 30])
def test_graph_linear_pipeline_fits(tmp_path, n):
    """A linear pipeline wraps into bands: the PNG is neither a strip nor mostly empty."""
    from PIL import Image
    from tepad.viz.graph import render_graph_png, schedule_graph
    out = tmp_path / "g.png"
    assert render_graph_png(schedule_graph(_chain(n)), out, prefer_dot=False) == "matplotlib"
    w, h = Image.open(out).size
    assert 1 / 3 <= w / h <= 3, (w, h)
    assert max(w, h) <= 2200, (w, h)


@pytest.mark.parametrize("example", ["blur", "maxpool_rolling", "conv2d", "matmul"])
def test_graph_png_example_size(tmp_path, example):
    from PIL import Image
    out = tmp_path / "g.png"
    assert cli.main(["graph", str(EX / f"{example}.py"), "--png", str(out),
                     "--matplotlib"]) == 0
    w, h = Image.open(out).size
    assert w <= 1200 and h <= 1200 and 1 / 3 <= w / h <= 3, (w, h)


@pytest.mark.parametrize("example", ["blur", "conv2d"])
def test_graph_node_text_inside_box(example):
    """Every node's text lies inside its box, the boxes don't overlap, and all are drawn
    inside the figure."""
    import matplotlib.pyplot as plt
    from tepad.viz.graph import graph_figure, schedule_graph
    g = schedule_graph(_sched(example))
    fig = graph_figure(g)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    nodes = [t for t in fig.axes[0].texts if str(t.get_gid()).startswith("node:")]
    assert {t.get_gid()[5:] for t in nodes} == set(g.nodes)
    boxes = []
    for t in nodes:
        te_, be = t.get_window_extent(r), t.get_bbox_patch().get_window_extent(r)
        assert be.x0 <= te_.x0 and te_.x1 <= be.x1 and be.y0 <= te_.y0 and te_.y1 <= be.y1
        assert 0 <= be.x0 and be.x1 <= fig.bbox.width and 0 <= be.y0 and \
            be.y1 <= fig.bbox.height
        boxes.append(be)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b)
    plt.close(fig)


def test_graph_uses_dot_when_installed(tmp_path, monkeypatch):
    """With ``dot`` on PATH the PNG comes from graphviz, fed the DOT text."""
    import os
    from tepad.viz.graph import render_graph_png, schedule_graph
    fake = tmp_path / "bin" / "dot"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\ncat > \"$3.dot\"\nprintf 'PNG' > \"$3\"\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "g.png"
    assert render_graph_png(schedule_graph(_sched("blur")), out) == "graphviz"
    assert "digraph" in (tmp_path / "g.png.dot").read_text()
    fake.write_text("#!/bin/sh\nexit 1\n")       # a broken dot: matplotlib instead
    assert render_graph_png(schedule_graph(_sched("blur")), out) == "matplotlib"
    _png(out)


def _title_boxes(fig, r):
    boxes = [ax.title.get_window_extent(r) for ax in fig.axes if ax.get_title()]
    if fig._suptitle is not None:
        boxes.append(fig._suptitle.get_window_extent(r))
    return boxes


@pytest.mark.parametrize("example,stage", [("blur", "Bx"), ("maxpool_rolling", "B"),
                                           ("padded_conv1d", "B"), ("conv2d", "O16")])
def test_bounds_legend_clear_of_titles(example, stage):
    import matplotlib.pyplot as plt
    from tepad.viz.regions import consumer_regions, regions_figure
    fig = regions_figure(consumer_regions(_sched(example), stage))
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    assert legends
    titles = _title_boxes(fig, r)
    labels = [ax.xaxis.label.get_window_extent(r) for ax in fig.axes if ax.get_xlabel()]
    for lg in legends:
        lb = lg.get_window_extent(r)
        assert 0 <= lb.y0 and lb.y1 <= fig.bbox.height
        for tb in titles + labels:
            assert not lb.overlaps(tb)
    for i, a in enumerate(titles):             # panel titles clear of each other and labels
        for b in titles[i + 1:] + labels:
            assert not a.overlaps(b)
    plt.close(fig)


def test_bounds_coincide_message(tmp_path):
    """blur's Bx: interval box, exact region and needed set are the same; one band, said so."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle
    from tepad.viz.regions import coincide_message, consumer_regions, regions_figure
    rep = consumer_regions(_sched("blur"), "Bx", iterations=2)
    assert all(it.coincide() == [["interval", "exact", "needed"]] for it in rep.iterations)
    assert "coincide" in coincide_message(rep, rep.iterations[0])
    fig = regions_figure(rep)
    for ax in fig.axes[:2]:
        assert "coincide (4352 elements)" in ax.get_title()
        assert len([p for p in ax.patches if isinstance(p, Rectangle)]) == 1
    plt.close(fig)


def test_bounds_no_coincide_message_when_different():
    """padded_conv1d's output B: nothing reads it, so the needed set is empty."""
    import matplotlib.pyplot as plt
    from tepad.viz.regions import consumer_regions, regions_figure
    rep = consumer_regions(_sched("padded_conv1d"), "B")
    it = rep.iterations[0]
    assert it.coincide() == [["interval", "exact"], ["needed"]]
    fig = regions_figure(rep)
    assert "no consumers" in fig.axes[0].get_title()
    plt.close(fig)


def _matmul_accumulator():
    """examples/matmul.py's accumulation stage for the host target: its cache_write stage,
    or ``Cp`` where the panel width (three vectors with 16 registers) pads the panels."""
    s = _sched("matmul")
    return "Cp" if any(st.op.name == "Cp" for st in s.stages) else "C.global"


@pytest.mark.parametrize("example,stage", [("elementwise", "A"), ("padded_conv1d", "A"),
                                           ("row_summation", "A"), ("blur", "Bx"),
                                           ("matmul", None), ("conv2d", "O16")])
def test_bounds_default_stage_has_consumers(tmp_path, capsys, example, stage):
    stage = stage or _matmul_accumulator()
    out = tmp_path / "b.png"
    assert cli.main(["bounds", str(EX / f"{example}.py"), "--no-exact", "--plot",
                     str(out)]) == 0
    text = capsys.readouterr().out
    assert f"showing {stage}," in text
    assert "consumers -" not in text
    _png(out)


def test_bounds_input_guarded_reads():
    """padded_conv1d reads A under if_then_else: only in-shape elements are needed."""
    from tepad.viz.regions import consumer_regions
    rep = consumer_regions(_sched("padded_conv1d"), "A")
    it = rep.iterations[0]
    assert rep.is_input and it.interval_box == [(0, 16)] and len(it.needed) == 16
    assert it.outside == 0 and "given whole" in str(rep)


def test_layout_separator_marks(tmp_path):
    import matplotlib.pyplot as plt
    from tepad.viz.layout import layout_cells, layout_figure, separator_marks
    s = _sched("nhwc_to_nchwc")
    assert separator_marks(layout_cells(s, "B")) == [(3, "between", None)]
    fig = layout_figure(s, "B")
    marks = fig.findobj(lambda a: a.get_gid() == "axis-separator")
    assert len(marks) >= 2
    phys = fig.axes[1]
    assert "|" in phys.get_title() and "group 0" in phys.get_ylabel() and \
        "group 1" in phys.get_xlabel()
    plt.close(fig)
    out = tmp_path / "l.png"
    assert cli.main(["layout", str(EX / "nhwc_to_nchwc.py"), "--png", str(out)]) == 0
    _png(out)


def test_layout_separator_inside_columns():
    """A separator that does not split rows from columns is drawn as lines."""
    import matplotlib.pyplot as plt
    from tepad import te
    from tepad.viz.layout import layout_cells, layout_figure, separator_marks
    A = te.placeholder((4, 8, 6), "float32", name="A")
    B = te.compute((4, 8, 6), lambda i, j, k: A[i, j, k] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[B].transform_layout(lambda i, j, k: [i, te.AXIS_SEPARATOR, j, te.AXIS_SEPARATOR,
                                           k // 2, k % 2])
    c = layout_cells(s, "B")
    assert c.grouped_shape == (4, 8, 6)
    assert separator_marks(c) == [(1, "between", None), (2, "cols", 6)]
    fig = layout_figure(s, "B")
    lines = [a for a in fig.axes[1].lines if a.get_gid() == "axis-separator"]
    assert len(lines) == 2 + 7                 # the row|column frame, and every 6 of 48 columns
    plt.close(fig)


def test_layout_no_separator_no_marks():
    import matplotlib.pyplot as plt
    from tepad.viz.layout import layout_figure
    fig = layout_figure(_sched("row_summation"), "A")
    assert not fig.findobj(lambda a: a.get_gid() == "axis-separator")
    plt.close(fig)


def test_layout_png_draws_every_transformed_stage(tmp_path, capsys):
    out = tmp_path / "l.png"
    assert cli.main(["layout", str(EX / "padded_conv1d.py"), "--png", str(out)]) == 0
    text = capsys.readouterr().out
    for stage in ("A", "B"):                      # both stages have a transform_layout
        _png(tmp_path / f"l_{stage}.png")
        assert f"l_{stage}.png (stage {stage})" in text
    assert not out.exists()
