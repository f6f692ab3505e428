"""``import tepad`` stays cheap: heavy optional dependencies and rarely used face packages are
loaded on first use (``tepad._lazy``, PEP 562 ``tepad.__getattr__``), never by the import
itself (issue 17). Checked on ``sys.modules`` of a fresh interpreter, not by wall-clock time."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: loaded only by the code paths that use them
NOT_ON_IMPORT = {"networkx", "islpy", "matplotlib", "hypothesis", "tepad.fuzz", "tepad.viz",
                 "tepad.topi", "tepad.testing", "tepad.contrib"}


def _modules_after(code):
    """Top-level packages and ``tepad.*`` packages in ``sys.modules`` after running ``code``
    in a fresh interpreter that imports this checkout's tepad."""
    probe = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\n{code}\n"
             "import json; print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    mods = json.loads(out.strip().splitlines()[-1])
    return {m for m in mods if "." not in m} | {m for m in mods if m.startswith("tepad.")}


def test_import_tepad_loads_no_heavy_module():
    mods = _modules_after("import tepad\nfrom tepad import te, tir")
    assert "tepad" in mods and "tepad.te" in mods
    assert not (NOT_ON_IMPORT & mods), sorted(NOT_ON_IMPORT & mods)


@pytest.mark.parametrize("code, loaded", [
    ("import tepad; tepad.topi", {"tepad.topi"}),
    ("from tepad import testing", {"tepad.testing"}),
    ("import tepad; tepad.fuzz", {"tepad.fuzz"}),
    ("from tepad import te\nA = te.placeholder((4,), name='A')\n"
     "te.create_schedule(te.compute((4,), lambda i: A[i] + 1).op)", {"networkx"}),
    ("import tepad\nfrom tepad import te\nA = te.placeholder((8,), name='A')\n"
     "B = te.compute((8,), lambda i: A[i] * 2, name='B')\n"
     "tepad.lower(te.create_schedule(B.op), [A, B], exact_bounds=True)", {"islpy"}),
])
def test_lazy_modules_load_on_first_use(code, loaded):
    mods = _modules_after(code)
    assert loaded <= mods, sorted(loaded - mods)


def test_lazy_face_attributes():
    import tepad
    assert "topi" in dir(tepad)
    with pytest.raises(AttributeError):
        tepad.no_such_submodule_here
