"""``benchmarks/tvm_api_census.py``: names are read from a module's source the way a program
reaches them (``__all__``, public definitions, a package's re-exports, ``from x import *``),
signatures compared by parameter names, scopes decided by rule; and, where the TVM git
mirror is on this machine, every in-scope name (and class member) of TVM 0.6 and 0.18 outside
topi resolves through ``import tepad as tvm``."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import tvm_api_census as census  # noqa: E402


class _FakeRelease(census.Release):
    """A release whose files are given as text (no git)."""

    def __init__(self, files):
        self.tag, self.ref = "fake", "fake"
        self.files = set(files)
        self._text = dict(files)
        self._ffi = {"schedule": {"InferBound", "_Hidden"}}
        self._names = {}


def test_names_from_source():
    rel = _FakeRelease({
        "python/tvm/te/__init__.py": (
            "from .ops import *\nfrom .sched import create_schedule as cs\n"
            "from . import hybrid\nfrom numpy import nothing\n"),
        "python/tvm/te/ops.py": (
            "import os\n__all__ = ['compute', 'var']\n"
            "def compute(shape, fcompute, name='c'): pass\n"
            "def var(name='v', dtype='int32', span=None): pass\n"
            "def _private(): pass\n"),
        "python/tvm/te/sched.py": (
            "class Stage:\n    def __init__(self, op, *, attach=None): pass\n"
            "def create_schedule(ops): pass\n_init_api('schedule', __name__)\n"),
        "python/tvm/te/hybrid/__init__.py": "def script(f): pass\n",
    })
    names = rel.names("python/tvm/te/__init__.py")
    assert set(names) == {"compute", "var", "cs", "hybrid"}
    assert names["compute"][1] == "function"
    assert names["compute"][2]["pos"] == ["shape", "fcompute", "name"]
    assert names["hybrid"][1] == "module"
    sched = rel.names("python/tvm/te/sched.py")
    assert set(sched) == {"Stage", "create_schedule", "InferBound"}
    assert sched["Stage"][2] == {"pos": ["op"], "kwonly": ["attach"], "varargs": False,
                                 "varkw": False}


def test_signature_compatibility():
    def ok(shape, fcompute, name="c", **kw):
        pass

    def renamed(shape, f, name="c"):
        pass

    params = {"pos": ["shape", "fcompute", "name", "span"], "kwonly": [], "varargs": False,
              "varkw": False}
    assert census.sig_compatible(ok, params) == (True, "")
    good, diff = census.sig_compatible(renamed, params)
    assert not good and "fcompute" in diff
    assert census.sig_compatible(3, params) is None


def test_scope_rules():
    assert census.scope("tvm.tir", "ptx_mma", "x.py:ptx_mma")
    assert census.scope("tvm.tir", "Schedule", "python/tvm/tir/schedule/schedule.py:Schedule")
    assert census.scope("tvm.contrib.cudnn", "conv_forward", "x")
    assert census.scope("tvm.tir", "exp", "python/tvm/tir/op.py:exp") is None
    assert census.scope("tvm.contrib.utils", "tempdir", "x") is None
    assert census.scope("tvm.ir", "PrimType", "python/tvm/ir/type.py:PrimType") is None
    assert census.scope("tvm.ir", "TupleType", "python/tvm/ir/type.py:TupleType")


@pytest.mark.skipif(not census.MIRROR.exists(), reason="no TVM git mirror on this machine")
def test_every_in_scope_name_resolves():
    recs = census.census(["v0.6.0", "v0.18.0"])
    assert len(recs) > 1000
    missing = [f"{r['module']}.{r['name']}" for r in recs
               if not r["out_of_scope"] and not r["tepad"]
               and not r["module"].startswith("tvm.topi")]
    assert missing == []
