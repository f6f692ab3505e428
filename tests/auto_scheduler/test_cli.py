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


GPU_FILE = '''
from tepad import te, tir, auto_scheduler


@auto_scheduler.register_workload
def cli_argmax(m, n):
    def fcombine(x, y):
        take = x[1] >= y[1]
        return tir.Select(take, x[0], y[0]), tir.Select(take, x[1], y[1])

    def fidentity(t0, t1):
        return tir.const(-1, t0), tir.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="float32")
    k = te.reduce_axis((0, n), "k")
    t_idx, t_val = te.compute((m,), lambda i: argmax((idx[i, k], val[i, k]), axis=k),
                              name="T")
    return [idx, val, t_idx, t_val]


@auto_scheduler.register_workload
def cli_cumsum(m, n):
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i], name="update")
    return [X, te.scan(init, update, state, inputs=[X], name="scan")]


TUNE_ARGS = {"cli_argmax": (8, 128), "cli_cumsum": (6, 64)}
'''


def test_tune_auto_cuda_through_the_emulator(tmp_path, capsys, monkeypatch):
    # a tuple reduction and a scan: the GPU sketch binds them to threads; every measured
    # state was checked against the numpy oracle, the best is printed as schedule code
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    src = tmp_path / "gpu_work.py"
    src.write_text(GPU_FILE)
    log = tmp_path / "gpu_work.json"
    code = cli.main(["tune", "--auto", str(src), "-n", "2", "--target", "cuda", "--log",
                     str(log), "--number", "1", "--repeat", "1", "--seed", "0"])
    text = capsys.readouterr().out
    assert code == 0, text
    for name in ("cli_argmax", "cli_cumsum"):
        assert f"[{name}] 2 states measured, 0 failed" in text, text
        assert f"[{name}] best schedule (tepad code):" in text
    assert "target=cuda" in text
    assert "s = te.create_schedule([T.op])" in text
    assert "s[T].bind(" in text and "te.thread_axis('threadIdx.x')" in text
    assert "s[update].bind(" in text and "s[init].bind(" in text
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert rows and all(r["r"][1] == 0 for r in rows)          # no errors
    assert {r["i"][0][1] for r in rows} == {"cuda"}


def test_tune_auto_bad_target(tmp_path, capsys):
    src = tmp_path / "work.py"
    src.write_text(FILE)
    assert cli.main(["tune", "--auto", str(src), "--target", "nosuchtarget"]) != 0
    assert "--target 'nosuchtarget'" in capsys.readouterr().err


def test_tune_target_without_auto_is_refused(tmp_path, capsys):
    src = tmp_path / "work.py"
    src.write_text(FILE)
    assert cli.main(["tune", str(src), "--target", "cuda"]) != 0
    assert "--target goes with --auto" in capsys.readouterr().err
