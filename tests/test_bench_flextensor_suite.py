"""``benchmarks/flextensor_suite.py`` / ``flextensor_cases.py`` without the FlexTensor
mirror: the scope rules over script sources and first errors, the summary counts, the
section written into a RESULTS file, and the numpy references the cases compare with
(checked against direct loops)."""
import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import flextensor_cases as fc  # noqa: E402
import flextensor_suite as fs  # noqa: E402


def test_out_rules_over_sources():
    assert fs.out_reason("import torch\nimport tvm\n") == "needs PyTorch"
    assert fs.out_reason("from tvm import relay\n") == "relay/nnvm"
    assert fs.out_reason("x = tvm.tg.get_graph()\n").startswith("FlexTensor's TVM fork")
    assert fs.out_reason("remote = rpc.connect(host, port)\n").startswith("remote device")
    assert fs.out_reason("n = int(sys.argv[1])\n") == "needs command-line arguments"
    assert fs.out_reason("import tvm\nA = tvm.te.placeholder((4,))\n") == ""


def test_error_rules_sort_failures_that_are_not_tepads():
    def cls(err):
        for result, why, rx in fs.ERROR_RULES:
            if __import__("re").search(rx, err):
                return result
        return "fail"
    assert cls("ModuleNotFoundError: No module named 'torch' (flextensor/train.py:5)") == "out"
    assert cls("ImportError: cannot import name 'YoloConvLayer17' from 'flextensor.nn'") == \
        "broken"
    assert cls("tepad.errors.TepadError: `/` on integer expressions (c / 1) is ambiguous") == \
        "broken"
    assert cls("tepad.errors.TepadError: stage C: something tepad refuses") == "fail"


def test_summary_counts_per_group():
    recs = [{"name": "op:a", "result": "pass"}, {"name": "op:b", "result": "broken"},
            {"name": "space:c", "result": "fail"}, {"name": "flextensor/x.py", "result": "out"},
            {"name": "flextensor/y.py", "result": "pass"}]
    text = fs.summary(recs)
    assert "op: **1 of 1** pass (1 broken)" in text
    assert "space: **0 of 1** pass (1 fail)" in text
    assert "script: **1 of 1** pass (1 out)" in text


def test_report_writes_its_section(tmp_path):
    out = tmp_path / "RESULTS.md"
    out.write_text("# results\n\n## other\n\nkept\n")

    class A:
        baseline = None
        no_write = False
        only = ["op:"]
        timeout, script_timeout = 300, 240
        baseline_label = ""
        note = ""
    A.out = out
    fs.report(A, [{"name": "op:gemm", "result": "pass", "error": "", "note": "", "time": 1.0}],
              "0123456789abcdef")
    text = out.read_text()
    assert "kept" in text and fs.BEGIN in text and "`op:gemm` | pass" in text
    fs.report(A, [{"name": "op:gemm", "result": "fail", "error": "E", "note": "", "time": 1.0}],
              "0123456789abcdef")
    text = out.read_text()
    assert text.count(fs.BEGIN) == 1 and "`op:gemm` | fail" in text


def _direct_conv1d(x, w, stride, pad, dil, groups):
    n, c, l = x.shape
    k, cpg, kl = w.shape
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad)])
    ol = (l + 2 * pad - dil * (kl - 1) - 1) // stride + 1
    out = np.zeros((n, k, ol))
    kpg = k // groups
    for b, o, i, ci, r in itertools.product(range(n), range(k), range(ol), range(cpg),
                                            range(kl)):
        out[b, o, i] += xp[b, o // kpg * cpg + ci, i * stride + r * dil] * w[o, ci, r]
    return out


def test_conv_reference_against_loops():
    rng = np.random.default_rng(0)
    x, w = rng.random((2, 6, 11)), rng.random((9, 2, 3))
    np.testing.assert_allclose(fc.conv_ref(x, w, None, 2, 1, 2, 3),
                               _direct_conv1d(x, w, 2, 1, 2, 3), rtol=1e-12)


def test_conv_transpose_reference_is_the_adjoint():
    # <conv_transpose(y), x> == <y, conv(x)> with the weight read as (C_in, C_out/g, k)
    rng = np.random.default_rng(1)
    groups, s, p = 3, 2, 1
    x = rng.random((2, 6, 9))
    w = rng.random((9, 2, 3))                       # conv: 6 -> 9 channels
    y = rng.random(fc.conv_ref(x, w, None, s, p, 1, groups).shape)
    # the transpose (9 -> 6 channels) reads the same array as (C_in=9, C_out/g=2, k)
    back = fc.conv_transpose_ref(y, w, None, s, p, output_padding=0, groups=groups)
    assert back.shape == x.shape
    np.testing.assert_allclose((back * x).sum(),
                               (y * fc.conv_ref(x, w, None, s, p, 1, groups)).sum(), rtol=1e-10)
