"""``benchmarks/heldout_scripts.py``: the scope of a script from its source, reading a file
from a bare mirror at a commit, a pdb stop continued through stdin, and the pass / fail /
out classes of a run -- with a tiny local git repository, no fetched mirror needed."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import heldout_scripts as hs  # noqa: E402


def test_scope_from_the_source():
    assert hs.scope("import tvm\nfrom tvm import te\nA = te.placeholder((4,))\n") == ""
    assert hs.scope("from tvm import relay\nmod = relay.Function([], x)\n") == "relay/relax"
    assert hs.scope("import tvm.relax as relax\n") == "relay/relax"
    assert hs.scope("from tvm.script import tir as T\n") == "TVMScript / TensorIR"
    assert hs.scope("@T.prim_func\ndef f(): pass\n") == "TVMScript / TensorIR"
    conflict = "x = 1\n<<<<<<< HEAD\ny = 2\n=======\ny = 3\n>>>>>>> abc\n"
    assert hs.scope(conflict).startswith("not valid Python (merge-conflict")
    assert hs.scope("def f(:\n").startswith("not valid Python")


def test_entries_name_a_repo_a_full_commit_and_a_python_path():
    seen = set()
    for repo, commit, path in hs.SCRIPTS:
        assert repo.count("/") == 1 and len(commit) == 40 and path.endswith(".py")
        assert (repo, path) not in seen
        seen.add((repo, path))
    assert all(key in seen for key in hs.FAILS_ON_TVM)
    assert all(key in seen for key in hs.SLOW)


def test_read_script_from_a_bare_mirror(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["init", "-q", str(work)], check=True)
    (work / "a.py").write_text("print('v1')\n")
    subprocess.run(git + ["-C", str(work), "add", "a.py"], check=True)
    subprocess.run(git + ["-C", str(work), "commit", "-qm", "one"], check=True)
    first = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], check=True,
                           capture_output=True, text=True).stdout.strip()
    (work / "a.py").write_text("print('v2')\n")
    subprocess.run(git + ["-C", str(work), "commit", "-qam", "two"], check=True)
    mirrors = tmp_path / "mirrors"
    subprocess.run(["git", "clone", "-q", "--bare", str(work),
                    str(mirrors / "me+study" / "repo")], check=True)
    assert hs.read_script("me/study", first, "a.py", mirrors) == "print('v1')\n"


def test_run_script_pass_fail_pdb_and_placeholder(tmp_path):
    good = ("import pdb\nimport numpy as np\nimport tvm\nfrom tvm import te\n"
            "A = te.placeholder((8,), name='A')\n"
            "B = te.compute((8,), lambda i: A[i] * 3.0, name='B')\n"
            "f = tvm.build(te.create_schedule(B.op), [A, B])\n"
            "pdb.set_trace()\n"
            "a = tvm.nd.array(np.arange(8, dtype='float32')); b = tvm.nd.empty((8,), 'float32')\n"
            "f(a, b)\nassert (b.numpy() == np.arange(8) * 3).all()\n")
    assert hs.run_script(good, tmp_path / "good", timeout=200)["result"] == "pass"
    bad = "import tvm\ntvm.no_such_name_anywhere\n"
    res = hs.run_script(bad, tmp_path / "bad", timeout=200)
    assert res["result"] == "fail" and "no_such_name_anywhere" in res["error"]
    assert "(line 2)" in res["error"]
    relay = "import tvm\nfrom tvm import relay\nfor v in relay.var('x'):\n    pass\n"
    res = hs.run_script(relay, tmp_path / "relay", timeout=200)
    assert res["result"] == "out" and res["error"].startswith("relay/relax")


def test_summary_counts_fail_on_tvm_and_out_apart():
    recs = [{"result": r} for r in ("pass", "pass", "fail", "fail*", "out", "timeout")]
    text = hs.summary(recs)
    assert text.startswith("**2 of 4**") and "1 more fail on TVM" in text and \
        "1 more out of scope" in text


def test_rerun_records_replace_the_same_scripts(tmp_path):
    main = [{"repo": "a/b", "path": "x.py", "result": "timeout"},
            {"repo": "a/b", "path": "y.py", "result": "pass"}]
    rerun = [{"repo": "a/b", "path": "x.py", "result": "pass"},
             {"repo": "c/d", "path": "z.py", "result": "fail"}]
    (tmp_path / "main.json").write_text(hs.json.dumps(main))
    (tmp_path / "rerun.json").write_text(hs.json.dumps(rerun))
    got = hs._merged(tmp_path / "main.json", [tmp_path / "rerun.json"])
    assert [(r["path"], r["result"]) for r in got] == [("x.py", "pass"), ("y.py", "pass"),
                                                        ("z.py", "fail")]
