"""``tepad tune --auto FILE.py``: auto-schedules the registered workloads of a file."""
import json

from tepad import cli

FILE = '''
from tepad import te, auto_scheduler


@auto_scheduler.register_workload
def cli_scale_add(n, m):
    a = te.placeholder((n, m), name="a")
    b = te.placeholder((n, m), name="b")
    out = te.compute((n, m), lambda i, j: a[i, j] * 3.0 + b[i, j], name="out")
    return [a, b, out]


TUNE_ARGS = {"cli_scale_add": (16, 32)}
'''


def test_tune_auto(tmp_path, capsys):
    src = tmp_path / "work.py"
    src.write_text(FILE)
    log = tmp_path / "work.json"
    code = cli.main(["tune", "--auto", str(src), "-n", "3", "--log", str(log), "--number",
                     "1", "--repeat", "1", "--seed", "0"])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "[cli_scale_add] args=(16, 32)" in text
    assert "[cli_scale_add] 3 states measured, 0 failed" in text
    assert "default_schedule:" in text and "speedup over default_schedule" in text
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    # the 3 states, then the best few measured twice more to confirm the best
    states = {json.dumps(r["i"][1]) for r in rows}
    assert len(states) == 3 and rows[0]["i"][0][0] == '["cli_scale_add", 16, 32]'
    assert len(rows) == 3 + 2 * 3 and "measured again to confirm the best" in text


def test_tune_auto_without_workloads(tmp_path, capsys):
    src = tmp_path / "empty.py"
    src.write_text("x = 1\n")
    assert cli.main(["tune", "--auto", str(src)]) != 0
    assert "register_workload" in capsys.readouterr().err


def test_tune_auto_draws_the_best_so_far_curve(tmp_path, capsys):
    from tepad.auto_scheduler.curve import best_so_far
    src = tmp_path / "work.py"
    src.write_text(FILE)
    log, png = tmp_path / "work.json", tmp_path / "curve.png"
    code = cli.main(["tune", "--auto", str(src), "-n", "3", "--log", str(log), "--number",
                     "1", "--repeat", "1", "--seed", "0", "--curve", str(png)])
    assert code == 0
    assert f"best-so-far curve: {png}" in capsys.readouterr().out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = [json.loads(line) for line in log.read_text().splitlines()][:3]
    costs = [min(r["r"][0]) for r in rows]
    flop = 16 * 32
    curve = best_so_far(str(log), '["cli_scale_add", 16, 32]', flop)[:3]
    want = [flop / min(costs[:k + 1]) / 1e9 for k in range(3)]
    assert curve == want and curve == sorted(curve)
