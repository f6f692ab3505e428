"""Every picture command writes a non-empty PNG (skipped without matplotlib)."""
from pathlib import Path

import pytest

from tepad import cli

pytest.importorskip("matplotlib")

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
