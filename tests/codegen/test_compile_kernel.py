"""codegen.compile_kernel / CompiledKernel, and runtime.build_module / Module on top of it."""
import ast
import pathlib

import numpy as np

from tepad import codegen, tir
from tepad.codegen import CompiledKernel, compile_kernel
from tepad.runtime import ArgInfo, Module, build_module
from codegen_helpers import make_func, loop


def _add_one(n=16, name="main"):
    A, C = tir.Buffer((n,), "float32", "A"), tir.Buffer((n,), "float32", "C")
    return make_func([A, C], lambda a, c: loop(n, lambda i: tir.BufferStore(c, a[i] + 1.0, [i])),
                     name=name)


def test_compiled_kernel_describes_the_entry_point():
    n = tir.Var("n")
    A = tir.Buffer((n,), "int32", "A")
    f = make_func([A], lambda a: tir.AssertStmt(
        n > 2, tir.StringImm("n must exceed 2"),
        loop(n, lambda i: tir.BufferStore(a, a[i] * 2, [i]))), name="double_it")
    k = compile_kernel(f, num_threads=3)
    assert isinstance(k, CompiledKernel)
    assert k.name == "double_it" and k.func is f and k.num_threads == 3
    assert list(k.shape_vars) == [n]
    assert list(k.messages) == ["n must exceed 2"]
    assert "define i32 @\"double_it\"(" in k.source_ll and "double_it" in k.jit.ll
    mod = Module(k)                     # ArgInfo from the buffers
    assert [a.name for a in mod.arg_info] == ["A"]
    a = np.arange(5, dtype="int32")
    mod(a)
    np.testing.assert_array_equal(a, np.arange(5) * 2)


def test_cache_hit_shares_jit_code_whatever_the_arg_records():
    codegen.clear_cache()
    k1 = compile_kernel(_add_one())
    hits = codegen.stats["hits"]
    m2 = build_module(_add_one(), arg_info=[
        ArgInfo("x", "float32", (16,), (16,)), ArgInfo("y", "float32", (16,), (16,), is_output=True)])
    assert codegen.stats["hits"] == hits + 1 and m2._jit is k1.jit
    assert [a.name for a in m2.arg_info] == ["x", "y"]
    assert compile_kernel(_add_one(), name="other").jit is not k1.jit
    assert compile_kernel(_add_one(), num_threads=k1.num_threads + 1).jit is not k1.jit
    with codegen.cache_disabled():
        assert not codegen.compile_cache_enabled()
        assert compile_kernel(_add_one()).jit is not k1.jit
    assert codegen.compile_cache_enabled()


def test_codegen_does_not_import_the_runtime_or_import_inside_functions():
    """codegen sits below runtime; tepad imports are at module level only."""
    root = pathlib.Path(codegen.__file__).parent
    for path in sorted(root.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert "runtime" not in (node.module or ""), f"{path.name}: imports {node.module}"
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.ImportFrom) and (sub.level or
                                                            (sub.module or "").startswith("tepad")):
                        raise AssertionError(f"{path.name}: import inside {node.name}")
