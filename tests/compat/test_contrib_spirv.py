"""``tvm.contrib.spirv``: study scripts import it next to ``nvcc``; ``optimize`` runs the
SPIRV-Tools ``spirv-opt`` it finds ($VULKAN_SDK/bin or PATH) and says when there is none."""
import os
import stat
import sys

import pytest

import tepad
from tepad.contrib import spirv


def _fake_sdk(tmp_path, body):
    """A $VULKAN_SDK whose bin/spirv-opt is a Python script with ``body`` (argv as TVM
    passes it: -O IN -o OUT)."""
    tool = tmp_path / "bin" / "spirv-opt"
    tool.parent.mkdir()
    tool.write_text(f"#!{sys.executable}\nimport sys\nsrc, out = sys.argv[2], sys.argv[4]\n"
                    + body)
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return str(tmp_path)


def test_import_as_tvm_scripts_do():
    from tepad.contrib import nvcc, spirv as s   # noqa: F401
    assert s is spirv and callable(s.optimize)


def test_optimize_returns_what_spirv_opt_wrote(tmp_path, monkeypatch):
    sdk = _fake_sdk(tmp_path, "open(out, 'wb').write(open(src, 'rb').read()[::-1])\n")
    monkeypatch.setenv("VULKAN_SDK", sdk)
    data = bytes(range(40))
    got = spirv.optimize(bytearray(data))
    assert isinstance(got, bytearray) and bytes(got) == data[::-1]


def test_a_failing_spirv_opt_is_a_tepad_error_with_its_output(tmp_path, monkeypatch):
    sdk = _fake_sdk(tmp_path, "print('bad magic'); sys.exit(3)\n")
    monkeypatch.setenv("VULKAN_SDK", sdk)
    with pytest.raises(tepad.TepadError, match=r"exit 3[\s\S]*bad magic"):
        spirv.optimize(b"\x03\x02\x23\x07")


def test_no_spirv_opt_is_a_tepad_error(tmp_path, monkeypatch):
    monkeypatch.setenv("VULKAN_SDK", str(tmp_path / "nowhere"))
    with pytest.raises(tepad.TepadError, match="spirv-opt"):
        spirv.optimize(b"")
    monkeypatch.delenv("VULKAN_SDK")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(tepad.TepadError, match="PATH"):
        spirv.optimize(b"")
