"""``import tepad`` stays cheap: heavy optional dependencies and rarely used face packages are
loaded on first use (``tepad._lazy``, PEP 562 ``tepad.__getattr__``), never by the import
itself. Checked on ``sys.modules`` of a fresh interpreter, not by wall-clock time."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: loaded only by the code paths that use them: LLVM (llvmlite, both the IR builder and the
#: binding) and tepad's LLVM IR emitter with the first kernel compiled or the first host-CPU
#: query of a Target; the CUDA build paths with the first cuda build; ISL bounds with the first
#: exact query
NOT_ON_IMPORT = {"networkx", "islpy", "matplotlib", "hypothesis", "tepad.fuzz", "tepad.viz",
                 "tepad.topi", "tepad.testing", "tepad.contrib", "llvmlite",
                 "tepad.codegen.llvm_ir", "tepad.codegen.parallel", "tepad.codegen.nvptx",
                 "tepad.codegen.nvptx_target", "tepad.backend.cuda",
                 "tepad.backend.emulated", "tepad.lower.passes.emulate_gpu_threads",
                 "tepad.bound.exact"}


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
     "tepad.lower(te.create_schedule(B.op), [A, B], exact_bounds=True)",
     {"islpy", "tepad.bound.exact"}),
    ("import tepad\nfrom tepad import te\nA = te.placeholder((8,), name='A')\n"
     "B = te.compute((8,), lambda i: A[i] * 2, name='B')\n"
     "tepad.build(te.create_schedule(B.op), [A, B])", {"llvmlite", "tepad.codegen.llvm_ir"}),
    ("import tepad\ntepad.target.Target('llvm').mcpu", {"llvmlite"}),
    ("from tepad.backend.cuda import ptx_of", {"tepad.codegen.nvptx"}),
    ("import os; os.environ['TEPAD_CUDA'] = 'emulate'\nimport tepad\nfrom tepad import te\n"
     "A = te.placeholder((8,), name='A')\nB = te.compute((8,), lambda i: A[i] * 2, name='B')\n"
     "s = te.create_schedule(B.op)\ns[B].bind(B.op.axis[0], te.thread_axis('threadIdx.x'))\n"
     "tepad.build(s, [A, B], target='cuda')",
     {"tepad.backend.emulated", "tepad.lower.passes.emulate_gpu_threads"}),
])
def test_lazy_modules_load_on_first_use(code, loaded):
    mods = _modules_after(code)
    assert loaded <= mods, sorted(loaded - mods)


def test_lazy_face_attributes():
    import tepad
    assert "topi" in dir(tepad)
    with pytest.raises(AttributeError):
        tepad.no_such_submodule_here


def test_call_packed_symbol_is_there_whichever_module_loads_llvm_first():
    """The JIT finds ``tepad_call_packed`` even when llvmlite.binding was first loaded by a
    Target query rather than by the runtime (the JIT adds the provided symbols itself before
    each compile)."""
    code = """
import numpy as np
import tepad
from tepad import te, tir
tepad.target.Target("llvm").mcpu        # llvmlite.binding loads here, through tepad.target
seen = []
tepad.register_func("tepad.test.seen", lambda n: seen.append(n), override=True)
A = te.placeholder((4,), name="A")
C = te.extern((4,), [A], lambda ins, outs: tir.call_packed("tepad.test.seen", 7), name="C")
tepad.build(te.create_schedule(C.op), [A, C])(np.zeros(4, "float32"), np.zeros(4, "float32"))
assert seen == [7], seen
"""
    assert "llvmlite" in _modules_after(code)

