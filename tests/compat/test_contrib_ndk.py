"""``tvm.contrib.ndk.create_shared``: links with the compiler ``$TVM_NDK_CC`` names (here the
host's C compiler standing in for the NDK's), and says what to set when it is unset."""
import ctypes
import os
import shutil
import subprocess

import pytest

import tepad
from tepad.contrib import ndk


def test_ndk_without_compiler_names_the_variable(monkeypatch, tmp_path):
    monkeypatch.delenv("TVM_NDK_CC", raising=False)
    with pytest.raises(tepad.TepadError, match="TVM_NDK_CC"):
        ndk.create_shared(str(tmp_path / "lib.so"), [str(tmp_path / "a.o")])


@pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler on PATH")
def test_ndk_links_with_the_named_compiler(monkeypatch, tmp_path):
    src = tmp_path / "f.c"
    src.write_text("int twice(int x) { return 2 * x; }\n")
    obj = tmp_path / "f.o"
    subprocess.run(["cc", "-c", "-fPIC", "-o", str(obj), str(src)], check=True)
    monkeypatch.setenv("TVM_NDK_CC", "cc")
    out = tmp_path / "libf.so"
    ndk.create_shared(str(out), [str(obj)])
    assert ndk.create_shared.output_format == "so"
    assert ctypes.CDLL(os.fspath(out)).twice(21) == 42


def test_ndk_reachable_from_contrib():
    from tepad.contrib import ndk as again
    assert again is ndk and hasattr(tepad.contrib, "ndk")
