"""``benchmarks/tvm_gallery.py``: which tutorial paths are TE programs, the dedupe of files
shared by several tags, the import rewriting (auto_scheduler stays tepad's), the first error
read from a traceback, and one tiny tutorial run as a script -- no TVM mirror needed."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import tvm_gallery  # noqa: E402


def test_scope_of_tutorial_paths():
    r = tvm_gallery.out_reason
    for path in ["tutorials/language/scan.py", "tutorials/optimize/opt_gemm.py",
                 "tutorials/topi/intro_topi.py", "tutorials/autotvm/tune_simple_template.py",
                 "tutorials/tensor_expr_get_started.py",
                 "tutorials/auto_scheduler/tune_matmul_x86.py",
                 "gallery/how_to/work_with_schedules/tedd.py",
                 "gallery/how_to/extend_tvm/low_level_custom_pass.py",
                 "gallery/how_to/tune_with_autoscheduler/tune_sparse_x86.py",
                 "gallery/tutorial/autotvm_matmul_x86.py"]:
        assert r(path) == "", path
    assert r("tutorials/autotvm/tune_relay_x86.py") == "relay/relax/frontends"
    assert r("gallery/how_to/compile_models/from_onnx.py") == "relay/relax/frontends"
    assert r("gallery/how_to/extend_tvm/use_pass_infra.py") == "relay/relax/frontends"
    assert r("gallery/tutorial/cross_compilation_and_rpc.py") == ""    # rpc.LocalSession
    assert r("tutorials/rpc_tracker_demo.py") == "rpc/cross-compilation"
    assert r("gallery/how_to/work_with_microtvm/micro_tflite.py") == "microTVM"
    assert r("vta/tutorials/matrix_multiply.py") == "VTA"
    assert r("gallery/tutorial/tensor_ir_blitz_course.py") == "TVMScript"
    assert r("gallery/tutorial/tvmc_python.py") == "tvmc"
    assert r("gallery/how_to/extend_tvm/bring_your_own_datatypes.py") == \
        "bring_your_own_datatypes"


def test_collect_dedupes_by_blob_under_the_first_tag():
    ins, outs = tvm_gallery.collect({
        "v0.6.0": [("tutorials/language/scan.py", "aaa"), ("tutorials/relay_quick_start.py",
                                                           "bbb")],
        "v0.7.0": [("tutorials/language/scan.py", "aaa"), ("tutorials/language/tedd.py", "ccc")],
        "v0.8.0": [("gallery/how_to/work_with_schedules/scan.py", "aaa")],
    })
    assert [(r["tag"], r["path"], r["also"]) for r in ins] == [
        ("v0.6.0", "tutorials/language/scan.py", ["v0.7.0", "v0.8.0"]),
        ("v0.7.0", "tutorials/language/tedd.py", [])]
    assert [(r["path"], r["reason"]) for r in outs] == [
        ("tutorials/relay_quick_start.py", "relay/relax/frontends")]


def test_rewriting_keeps_auto_scheduler_and_sends_relay_to_a_placeholder():
    src = "import tvm\nfrom tvm import te, auto_scheduler, relay\nimport topi\n"
    out = tvm_gallery.tvm_suite.rewrite_source(src, tvm_gallery.OUT_MODULES).splitlines()
    assert out[0] == tvm_gallery.tvm_suite.TVM_BIND
    assert out[1].startswith("from tepad import te, auto_scheduler;")
    assert "relay = _TvmSuiteOut('relay')" in out[1]
    assert out[2] == "import topi"   # tepad ships TVM 0.6's top-level topi package


def test_first_error_is_the_exception_line_with_the_tutorial_line():
    err = ('Traceback (most recent call last):\n'
           '  File "/tmp/x/tutorial.py", line 12, in <module>\n'
           '    f()\n'
           '  File "/repo/tepad/te/op.py", line 3, in f\n'
           '    raise TepadError("no")\n'
           'tepad.errors.TepadError: no such thing\n')
    assert tvm_gallery.first_error(err) == "tepad.errors.TepadError: no such thing (line 12)"
    assert tvm_gallery.first_error("") == "(no output)"


def test_run_tutorial_pass_and_fail(tmp_path):
    good = ("import numpy as np\nimport tvm\nfrom tvm import te\n"
            "A = te.placeholder((8,), name='A')\n"
            "B = te.compute((8,), lambda i: A[i] + 1.0, name='B')\n"
            "f = tvm.build(te.create_schedule(B.op), [A, B])\n"
            "a = tvm.nd.array(np.ones(8, 'float32')); b = tvm.nd.empty((8,), 'float32')\n"
            "f(a, b)\nassert (b.numpy() == 2).all()\n")
    res = tvm_gallery.run_tutorial(good, tmp_path / "good", timeout=200)
    assert res["result"] == "pass", res
    bad = "import tvm\ntvm.no_such_name_anywhere\n"
    res = tvm_gallery.run_tutorial(bad, tmp_path / "bad", timeout=200)
    assert res["result"] == "fail" and "no_such_name_anywhere" in res["error"]
    assert res["error"].endswith("(line 2)")
    records = [{"tag": "v0.6.0", "path": "tutorials/x.py", "blob": "b", "also": [], **res}]
    rows = tvm_gallery.table(records, baseline={"b": {"result": "pass"}})
    assert rows[2].startswith("| v0.6.0 `tutorials/x.py` | fail | pass |")
    assert tvm_gallery.summary(records).startswith("**0 of 1**")


def test_uncomment_tuning_only_the_search_the_text_tells_to_run():
    src = ("log_file = 'x.json'\n"
           "# Uncomment the following line to run it by yourself.\n"
           "# task.tune(tune_option)\n"
           "sch, args = task.apply_best(log_file)\n"
           "# Uncomment the following line to run it by yourself.\n"
           "# resume_search(task, log_file)\n"
           "# task.tune(tune_option)\n")
    out, note = tvm_gallery.uncomment_tuning(src)
    lines = out.splitlines()
    assert lines[2] == "task.tune(tune_option)"
    assert lines[5] == "# resume_search(task, log_file)"
    assert lines[6] == "# task.tune(tune_option)"     # no hint right above it
    assert "uncommented" in note
    assert tvm_gallery.uncomment_tuning("task.tune(tune_option)\n") == \
        ("task.tune(tune_option)\n", "")
