"""``benchmarks/tvm_suite.py``: the import rewriting keeps line numbers and sends
out-of-scope modules to placeholders; a small TVM-style test folder (written here) runs,
and its tests are classified pass / fail / out of scope."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import tvm_suite  # noqa: E402


def test_rewrite_lines():
    r = tvm_suite.rewrite_line
    assert r("import tvm")[0] == tvm_suite.TVM_BIND
    assert r("    from tvm import te, topi")[0] == "    from tepad import te, topi"
    assert r("from tvm.topi.utils import get_const_tuple")[0] == \
        "from tepad.topi.utils import get_const_tuple"
    line, ph = r("from tvm import te, relay")
    assert ph and "\n" not in line and "relay = _TvmSuiteOut('relay')" in line
    assert r("import tvm, numpy")[0].startswith(tvm_suite.TVM_BIND)
    src = "import tvm\nfrom tvm import relay\n\n\ndef test_x():\n    pass\n"
    assert tvm_suite.rewrite_source(src).count("\n") == src.count("\n")


def test_classify_by_source_and_params():
    c = tvm_suite.classify
    assert c("relay.build(mod)", "test_a", "fail", "x") == ("out", "relay/relax")
    assert c("@T.prim_func\ndef f(): pass", "test_b", "fail", "x") == ("out", "TVMScript")
    # TVMScript bodies given to CompareBeforeAfter without the decorator
    assert c("def before(a: T.handle):\n    A = T.match_buffer(a, (4,))", "test_f", "fail",
             "x") == ("out", "TVMScript")
    assert c("A = T.decl_buffer(1, 'float32', data=p)", "test_g", "fail", "x") == \
        ("out", "TVMScript")
    assert c("te.compute(...)", "test_c[opencl]", "fail", "x") == ("out", "GPU API")
    assert c("te.compute(...)", "test_d", "fail", "E: boom") == ("fail", "E: boom")
    assert c("relay.build(mod)", "test_e", "pass", "") == ("out", "relay/relax")


SAMPLE = '''
import numpy as np
import tvm
import tvm.testing
from tvm import te, relay


def _double(n):
    A = te.placeholder((n,), name="A")
    return A, te.compute((n,), lambda i: A[i] * 2.0, name="B")


def test_builds_and_runs():
    A, B = _double(8)
    f = tvm.build(te.create_schedule(B.op), [A, B])
    a = tvm.nd.array(np.arange(8, dtype="float32"))
    b = tvm.nd.empty((8,), "float32")
    f(a, b)
    tvm.testing.assert_allclose(b.numpy(), np.arange(8) * 2.0)


def test_wrong_expectation():
    A, B = _double(4)
    assert B.shape[0] == 5


def test_needs_relay():
    relay.build(None)
'''


def test_suite_on_a_small_folder(tmp_path):
    src = tmp_path / "tests"
    (src / "te").mkdir(parents=True)
    (src / "te" / "test_sample.py").write_text(SAMPLE)
    out = tmp_path / "RESULTS.md"
    js = tmp_path / "records.json"
    assert tvm_suite.main([str(src), "--out", str(out), "--json", str(js),
                           "--timeout", "200"]) == 0
    got = {r["test"]: r["class"] for r in json.loads(js.read_text())}
    assert got == {"test_builds_and_runs": "pass", "test_wrong_expectation": "fail",
                   "test_needs_relay": "out"}
    text = out.read_text()
    assert tvm_suite.BEGIN in text and "50.0% (1/2)" in text
