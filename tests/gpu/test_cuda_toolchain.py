"""Where libdevice and ptxas are found: the TEPAD_* overrides, the CUDA 12 and CUDA 13 wheel
layouts, $CUDA_HOME, the system toolkit roots and PATH, each reported with where it was."""
import os
import stat
import sys

import pytest

from tepad.codegen import nvptx_target as nt


def _touch(path, executable=False):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x")
    if executable:
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.fixture
def isolated(monkeypatch, tmp_path):
    """No toolkit anywhere: an empty sys.path, no env vars, no system roots, empty PATH."""
    for var in ("TEPAD_LIBDEVICE", "TEPAD_PTXAS", "CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site")])
    monkeypatch.setattr(nt, "SYSTEM_ROOTS", ())
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    return tmp_path


def test_nothing_found_says_where_it_looked(isolated):
    path, why = nt.find_libdevice()
    assert path is None and "not found" in why and "$CUDA_HOME" in why
    assert nt.find_ptxas()[0] is None and "PATH" in nt.find_ptxas()[1]
    assert nt.libdevice_path() is None and nt.ptxas_path() is None


@pytest.mark.parametrize("wheel", ["cuda_nvcc", "cu13"])
def test_wheel_layouts(isolated, wheel):
    root = isolated / "site" / "nvidia" / wheel
    lib = _touch(root / "nvvm" / "libdevice" / "libdevice.10.bc")
    ptxas = _touch(root / "bin" / "ptxas", executable=True)
    assert nt.find_libdevice() == (lib, f"the nvidia/{wheel} wheel")
    assert nt.find_ptxas() == (ptxas, f"the nvidia/{wheel} wheel")


def test_cuda_home_then_system_roots_newest_first(isolated, monkeypatch):
    old = isolated / "usr" / "cuda-12.4"
    new = isolated / "usr" / "cuda-12.10"
    for root in (old, new):
        _touch(root / "nvvm" / "libdevice" / "libdevice.10.bc")
    monkeypatch.setattr(nt, "SYSTEM_ROOTS", (str(isolated / "usr" / "cuda"),
                                             str(isolated / "usr" / "cuda-*")))
    path, how = nt.find_libdevice()
    assert path.startswith(str(new)) and how == str(new)       # 12.10 is newer than 12.4
    home = isolated / "home_cuda"
    lib = _touch(home / "nvvm" / "libdevice" / "libdevice.10.bc")
    monkeypatch.setenv("CUDA_HOME", str(home))
    assert nt.find_libdevice() == (lib, "$CUDA_HOME")


def test_ptxas_on_path_before_system_roots(isolated, monkeypatch):
    _touch(isolated / "opt" / "bin" / "ptxas", executable=True)
    monkeypatch.setattr(nt, "SYSTEM_ROOTS", (str(isolated / "opt"),))
    assert nt.find_ptxas() == (str(isolated / "opt" / "bin" / "ptxas"), str(isolated / "opt"))
    on_path = _touch(isolated / "bin" / "ptxas", executable=True)
    assert nt.find_ptxas() == (on_path, "PATH")


def test_overrides_win_and_a_missing_override_is_reported(isolated, monkeypatch):
    _touch(isolated / "site" / "nvidia" / "cuda_nvcc" / "nvvm" / "libdevice" /
           "libdevice.10.bc")
    mine = _touch(isolated / "mine.bc")
    monkeypatch.setenv("TEPAD_LIBDEVICE", mine)
    assert nt.find_libdevice() == (mine, "$TEPAD_LIBDEVICE")
    monkeypatch.setenv("TEPAD_PTXAS", str(isolated / "nope"))
    path, why = nt.find_ptxas()
    assert path is None and "TEPAD_PTXAS" in why and "not a file" in why


def test_report_names_llvm_and_both_files():
    r = nt.toolchain_report()
    assert r["nvptx_backend"] is True
    assert r["llvm"].count(".") == 2 and r["llvmlite"]
    for key in ("libdevice", "ptxas"):
        path, how = r[key]
        assert (path is None) or os.path.isfile(path)
        assert isinstance(how, str) and how
