"""Tensorized stages that call a C-style micro-kernel through ``access_ptr`` arguments build
and run on the CPU: the kernel's LLVM IR comes in through ``pragma(axis, "import_llvm", ...)``
(as ``tvm.contrib.clang.create_llvm`` would give it) and ``tvm_access_ptr`` becomes the
address of the tensorized region."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te

# vadd(x, y, z): z[0:4] = x[0:4] + y[0:4], the IR a C compiler writes for it
VADD_LL = """; ModuleID = '{module}'
source_filename = "{module}"
define float @vadd(ptr %x, ptr %y, ptr %z) {{
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %py = getelementptr inbounds float, ptr %y, i64 %i
  %pz = getelementptr inbounds float, ptr %z, i64 %i
  %a = load float, ptr %px
  %b = load float, ptr %py
  %s = f{op} float %a, %b
  store float %s, ptr %pz
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, 4
  br i1 %done, label %exit, label %loop
exit:
  ret float 0.0
}}
"""


def _tensorized_vadd(vadd_extern, n=32):
    intrin = vadd_extern(4)
    x = te.placeholder((n,), name="x")
    y = te.placeholder((n,), name="y")
    z = te.compute((n,), lambda i: x[i] + y[i], name="z")
    s = te.create_schedule(z.op)
    xo, xi = s[z].split(z.op.axis[0], factor=4)
    s[z].tensorize(xi, intrin)
    return s, xo, [x, y, z]


def _run(f, n=32):
    rng = np.random.default_rng(3)
    a, b = rng.random(n, dtype="float32"), rng.random(n, dtype="float32")
    c = np.zeros(n, "float32")
    f(a, b, c)
    return a, b, c


def test_tensorized_extern_call_builds_and_runs(vadd_extern):
    s, xo, args = _tensorized_vadd(vadd_extern)
    s[args[2]].pragma(xo, "import_llvm", VADD_LL.format(module="a.cc", op="add"))
    assert "tvm_access_ptr" in str(tvm.lower(s, args, simple_mode=True))
    a, b, c = _run(tvm.build(s, args, "llvm"))
    np.testing.assert_array_equal(c, a + b)


def test_the_same_kernel_imported_twice_is_linked_once(vadd_extern):
    """Two imports of one micro-kernel compiled twice (their IR differs only in the file
    names) define it once."""
    s, xo, args = _tensorized_vadd(vadd_extern)
    xoo, xoi = s[args[2]].split(xo, factor=2)
    s[args[2]].pragma(xoo, "import_llvm", VADD_LL.format(module="/tmp/a/in.cc", op="add"))
    s[args[2]].pragma(xoi, "import_llvm", VADD_LL.format(module="/tmp/b/in.cc", op="add"))
    a, b, c = _run(tvm.build(s, args, "llvm"))
    np.testing.assert_array_equal(c, a + b)


def test_two_different_definitions_of_one_name_are_refused(vadd_extern):
    s, xo, args = _tensorized_vadd(vadd_extern)
    xoo, xoi = s[args[2]].split(xo, factor=2)
    s[args[2]].pragma(xoo, "import_llvm", VADD_LL.format(module="a.cc", op="add"))
    s[args[2]].pragma(xoi, "import_llvm", VADD_LL.format(module="b.cc", op="sub"))
    with pytest.raises(tvm.TepadError, match="defines 'vadd' differently"):
        tvm.build(s, args, "llvm")


@pytest.mark.parametrize("form", ["ll", "bc"])
def test_the_pragma_may_name_a_file_of_ir_or_bitcode(vadd_extern, tmp_path, form):
    import llvmlite.binding as llvm
    text = VADD_LL.format(module="v.cc", op="add")
    path = tmp_path / f"vadd.{form}"
    if form == "ll":
        path.write_text(text)
    else:
        path.write_bytes(llvm.parse_assembly(text).as_bitcode())
    s, xo, args = _tensorized_vadd(vadd_extern)
    s[args[2]].pragma(xo, "import_llvm", str(path))
    a, b, c = _run(tvm.build(s, args, "llvm"))
    np.testing.assert_array_equal(c, a + b)
    # the file's text is part of the compile: another kernel in the same file is rebuilt
    path.write_text(VADD_LL.format(module="v.cc", op="sub")) if form == "ll" else \
        path.write_bytes(llvm.parse_assembly(VADD_LL.format(module="v.cc", op="sub"))
                         .as_bitcode())
    s, xo, args = _tensorized_vadd(vadd_extern)
    s[args[2]].pragma(xo, "import_llvm", str(path))
    a, b, c = _run(tvm.build(s, args, "llvm"))
    np.testing.assert_array_equal(c, a - b)
