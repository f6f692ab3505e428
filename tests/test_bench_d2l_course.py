"""``benchmarks/d2l_course.py``: a chapter's code cells read from its markdown, the MXNet
statements left out (and what depends on them, no more), the imports rewritten (also the one
opening a ``timeit`` setup string), the first error read from the driver's stderr, and one tiny
chapter run cell by cell in an IPython shell -- no mirror of the course needed."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import d2l_course  # noqa: E402

CHAPTER = """# A chapter

Some text.

```{.python .input  n=1}
import numpy as np
x = np.arange(4)
```

```python
not a code cell
```

```{.python .input}
x.sum()
```
"""


def test_cells_of_reads_only_the_input_fences():
    assert d2l_course.cells_of(CHAPTER) == ["import numpy as np\nx = np.arange(4)\n",
                                            "x.sum()\n"]


def test_strip_mxnet_spreads_to_dependants_only():
    cells = ["%matplotlib inline\nimport numpy as np\nimport mxnet as mx\nsizes = [1, 2]\n",
             "def mx_time(n):\n    return mx.nd.ones(n)\n\nt = [mx_time(n) for n in sizes]\n"
             "tvm_t = [n * 2 for n in sizes]\n",
             "both = [t, tvm_t]\nonly_tvm = tvm_t\n",
             "timer = bench_conv_mxnet(sizes)\nc = 3\nd = [c for c in sizes]\n"]
    run, dropped = d2l_course.strip_mxnet(cells)
    assert dropped == 5
    skip = d2l_course.SKIPPED
    assert run[0].splitlines() == ["%matplotlib inline", "import numpy as np",
                                   skip + "import mxnet as mx", "sizes = [1, 2]"]
    assert run[1].splitlines()[0].startswith(skip) and run[1].splitlines()[1].startswith(skip)
    assert run[1].splitlines()[3] == skip + "t = [mx_time(n) for n in sizes]"
    assert run[1].splitlines()[4] == "tvm_t = [n * 2 for n in sizes]"
    assert run[2].splitlines() == [skip + "both = [t, tvm_t]", "only_tvm = tvm_t"]
    # a comprehension's variable is its own: 'c' bound at top level still runs
    assert run[3].splitlines() == [skip + "timer = bench_conv_mxnet(sizes)", "c = 3",
                                   "d = [c for c in sizes]"]


def test_rewrite_turns_statement_and_setup_string_imports():
    src = "import tvm\nfrom tvm import te\nT = timeit.Timer(setup='import tvm\\n'\n"
    out = d2l_course.rewrite(src).splitlines()
    assert "tepad" in out[0] or "_tvm_suite_support" in out[0]
    assert out[1] == "from tepad import te"
    assert out[2] == "T = timeit.Timer(setup='import tepad as tvm\\n'"


def test_first_error_names_the_cell():
    err = ("Traceback (most recent call last):\n  File \"x\", line 1\n"
           "ValueError: bad split\nD2L_FAILED_CELL 7\n")
    assert d2l_course.first_error(err) == "ValueError: bad split (cell 7)"


def test_run_chapter_passes_and_fails(tmp_path):
    pytest.importorskip("IPython", reason="the harness runs chapters in an IPython shell, an "
                        "optional tool of benchmarks/ (pip install ipython)")
    shared = tmp_path / "shared" / "d2ltvm"
    shared.mkdir(parents=True)
    (shared / "__init__.py").write_text(
        "def plot(X, Y, xlabel=None, ylabel=None, legend=[], **kw):\n    return None\n")
    ok = ["import tvm\nfrom tvm import te\nA = te.placeholder((4,), name='A')\n",
          "import d2ltvm\nd2ltvm.plot([1, 2], [[3, 4]], 'n', 'GFLOPS', ['tvm'])\nA.shape\n"]
    res = d2l_course.run_chapter(ok, tmp_path / "ok", 120, tmp_path / "shared")
    assert res["result"] == "pass", res
    assert res["plots"] == [{"xlabel": "n", "ylabel": "GFLOPS", "legend": ["tvm"],
                             "X": [1.0, 2.0], "Y": [[3.0, 4.0]]}]
    bad = ok[:1] + ["B = A + 1\n", "raise ValueError('stop here')\n", "print('never')\n"]
    res = d2l_course.run_chapter(bad, tmp_path / "bad", 120, tmp_path / "shared")
    assert res["result"] == "fail"
    assert res["error"] == "ValueError: stop here (cell 3)"


def test_cap_sizes_applies_once_and_says_so():
    path = "chapter_cpu_schedules/matmul.md"
    old, new, _ = d2l_course.SIZE_CAPS[path]
    cells = ["import numpy as np\n", f"{old}\nx = 1\n"]
    out, note = d2l_course.cap_sizes(path, cells)
    assert out == ["import numpy as np\n", f"{new}\nx = 1\n"]
    assert note.startswith("timing sizes capped")
    out, note = d2l_course.cap_sizes(path, ["sizes = [1]\n"])
    assert out == ["sizes = [1]\n"] and "not applied" in note
    assert d2l_course.cap_sizes("chapter_x/y.md", cells) == (cells, "")


def test_numpy_checks_replace_the_mxnet_check_of_a_convolution():
    cells = ["import numpy as np\nimport mxnet as mx\n",
             "data, weight, bias, out_mx = d2ltvm.get_conv_data_mxnet(c, c, n, k, p, s, "
             "conv_type='depthwise')\n",
             "np.testing.assert_allclose(out_mx[0].asnumpy(), out.asnumpy(), atol=1e-5)\n"
             "print(1)\n"]
    run, _ = d2l_course.strip_mxnet(cells)
    run, n = d2l_course.numpy_checks(run)
    assert n == 1
    assert run[2].splitlines() == [
        "import _d2l_check; _d2l_check.conv(out.asnumpy(), c, c, n, k, p, s, "
        "conv_type='depthwise')  # in place of the MXNet check", "print(1)"]


def test_check_module_conv_matches_a_direct_loop(tmp_path, monkeypatch):
    import numpy as np
    import types
    rng = np.random.default_rng(0)
    data = rng.standard_normal((2, 6, 6)).astype("float32")
    weight = rng.standard_normal((3, 2, 3, 3)).astype("float32")
    fake = types.ModuleType("d2ltvm")
    fake.get_conv_data = lambda oc, ic, n, k, p, s, conv_type="direct": (data, weight, None)
    monkeypatch.setitem(sys.modules, "d2ltvm", fake)
    ns = {}
    exec(d2l_course.CHECK_MODULE, ns)
    p, s = 1, 2
    xp = np.pad(data, ((0, 0), (1, 1), (1, 1)))
    out = np.zeros((3, 3, 3), "float32")
    for o in range(3):
        for i in range(3):
            for j in range(3):
                out[o, i, j] = sum(xp[c, i * s + a, j * s + b] * weight[o, c, a, b]
                                   for c in range(2) for a in range(3) for b in range(3))
    ns["conv"](out, 3, 2, 6, 3, p, s)
    with pytest.raises(AssertionError):
        ns["conv"](out + 1, 3, 2, 6, 3, p, s)
