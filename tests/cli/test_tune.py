"""``tepad tune FILE.py``: every template of the file tuned, the log written, the best config
and its speedup over the untuned default printed."""
import json
import textwrap

from tepad.cli import main

FILE = textwrap.dedent('''
    from tepad import te, autotvm

    TUNE_ARGS = {"cli/scale": (32,)}

    @autotvm.template("cli/scale")
    def scale(n):
        A = te.placeholder((n, n), name="A")
        B = te.compute((n, n), lambda i, j: A[i, j] * 2.0, name="B")
        s = te.create_schedule(B.op)
        cfg = autotvm.get_config()
        cfg.define_split("tx", B.op.axis[1], num_outputs=2)
        cfg["tx"].apply(s, B, B.op.axis[1])
        return s, [A, B]

    @autotvm.template("cli/add")
    def add(n=16):
        A = te.placeholder((n,), name="A")
        B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
        s = te.create_schedule(B.op)
        cfg = autotvm.get_config()
        cfg.define_knob("unroll", [0, 1])
        if cfg["unroll"].val:
            s[B].unroll(B.op.axis[0])
        return s, [A, B]
''')


def test_tune_a_file(tmp_path, capsys):
    f = tmp_path / "kernels.py"
    f.write_text(FILE)
    log = tmp_path / "k.log"
    assert main(["tune", str(f), "-n", "3", "--log", str(log), "--seed", "0",
                 "--number", "2", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    for name in ("cli/scale", "cli/add"):
        assert f"[{name}] best: " in out
        assert f"[{name}] speedup over the untuned default: " in out
    assert "Progress: (3/3)" in out and "Progress: (1/1)" in out   # cli/add has 2 configs
    assert "[cli/scale] space 6 configs, 3 tried, 0 failed" in out
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    # the default and three trials of cli/scale, the default and one trial of cli/add
    assert [x["input"][1] for x in lines] == ["cli/scale"] * 4 + ["cli/add"] * 2
    assert all(x["result"][1] == 0 for x in lines)


def test_tune_refuses_a_file_without_templates(tmp_path, capsys):
    f = tmp_path / "plain.py"
    f.write_text("x = 1\n")
    assert main(["tune", str(f)]) == 2
    assert "no @autotvm.template" in capsys.readouterr().err


def test_tune_says_how_to_give_arguments(tmp_path, capsys):
    f = tmp_path / "noargs.py"
    f.write_text(FILE.replace('TUNE_ARGS = {"cli/scale": (32,)}', ""))
    assert main(["tune", str(f), "--template", "cli/scale"]) == 2
    assert "TUNE_ARGS" in capsys.readouterr().err


def test_tune_with_xgb_missing_says_how_to_install(tmp_path, capsys, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "xgboost", None)
    f = tmp_path / "kernels.py"
    f.write_text(FILE)
    assert main(["tune", str(f), "--tuner", "xgb", "--template", "cli/add", "-n", "1",
                 "--log", str(tmp_path / "x.log")]) == 2
    assert "tepad[tune]" in capsys.readouterr().err
