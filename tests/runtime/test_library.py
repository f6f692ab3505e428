"""Modules on disk: save / export_library / load_module keep the kernel and its checks."""
import os
import subprocess

import numpy as np
import pytest

import tepad
from tepad import te
from tepad.contrib import cc, utils

pytestmark = pytest.mark.skipif(cc.get_cc() is None, reason="no C compiler to link a library")


def scaled(factor):
    n = te.var("n")
    a = te.placeholder((n,), name="a")
    b = te.compute((n,), lambda i: a[i] * factor, name="b")
    s = te.create_schedule(b.op)
    return tepad.build(s, [a, b], name="scale")


def call(mod, size=10):
    x = np.arange(size, dtype="float32")
    y = np.zeros_like(x)
    mod(x, y)
    return x, y


def test_object_file_loads_directly(tmp_path):
    scaled(2.0).save(str(tmp_path / "k.o"))
    x, y = call(tepad.runtime.load_module(str(tmp_path / "k.o")))
    np.testing.assert_allclose(y, x * 2.0)


def test_reexport_under_the_same_name_loads_the_new_code(tmp_path):
    path = str(tmp_path / "k.so")
    scaled(2.0).export_library(path)
    first = tepad.runtime.load_module(path)
    scaled(5.0).export_library(path)
    second = tepad.runtime.load_module(path)
    x, y1 = call(first)
    _, y2 = call(second)
    np.testing.assert_allclose(y1, x * 2.0)
    np.testing.assert_allclose(y2, x * 5.0)


def test_loaded_module_keeps_argument_records_and_checks(tmp_path):
    mod = scaled(3.0)
    mod.export_library(str(tmp_path / "k.so"))
    back = tepad.runtime.load_module(str(tmp_path / "k.so"))
    assert [a.name for a in back.arg_info] == ["a", "b"]
    assert back.func.script() == mod.func.script()
    with pytest.raises(TypeError, match="dtype"):
        back(np.zeros(4, "float64"), np.zeros(4, "float32"))
    assert "scale" in back.get_source("asm")


def test_foreign_library_and_unknown_files_are_refused(tmp_path):
    src = tmp_path / "plain.c"
    src.write_text("int plain(void) { return 1; }\n")
    lib = str(tmp_path / "libplain.so.1")
    subprocess.run(cc.get_cc().split() + ["-shared", "-fPIC", "-o", lib, str(src)], check=True)
    with pytest.raises(tepad.TepadError, match="not a library exported by tepad"):
        tepad.runtime.load_module(str(tmp_path / "libplain.so.1"))
    (tmp_path / "k.txt").write_text("x")
    with pytest.raises(tepad.TepadError, match="unknown file type '.txt'"):
        tepad.runtime.load_module(str(tmp_path / "k.txt"))
    with pytest.raises(tepad.TepadError, match="does not exist"):
        cc.create_shared(str(tmp_path / "x.so"), [str(tmp_path / "none.o")])


def test_tempdir_is_removed():
    tmp = utils.tempdir()
    path = tmp.path
    with open(tmp.relpath("f"), "w") as f:
        f.write("1")
    assert tmp.listdir() == ["f"]
    tmp.remove()
    assert not os.path.exists(path)
