"""A pytest plugin giving TVM test files the fixtures TVM's ``tvm.testing.plugin`` gives them:
``target`` (each target tepad can run here, ``llvm`` on a CPU-only host) and ``dev`` (the
device of that target). A test directory enables it as TVM's conftest.py does:
``pytest_plugins = ["tepad.testing.plugin"]``.

Tests that parametrize ``target`` themselves (``tvm.testing.parametrize_targets``,
``pytest.mark.parametrize("target", ...)``) keep their own list."""
from __future__ import annotations

import pytest

from ..runtime import device as make_device

#: the targets a test without its own target list runs on
ENABLED_TARGETS = ("llvm",)


def _parametrizes(metafunc, name):
    return any(m.name == "parametrize" and name in str(m.args[0]).replace(" ", "").split(",")
               for m in metafunc.definition.iter_markers())


def pytest_generate_tests(metafunc):
    if "target" in metafunc.fixturenames and not _parametrizes(metafunc, "target"):
        metafunc.parametrize("target", list(ENABLED_TARGETS))


@pytest.fixture
def dev(target):
    """The device for ``target`` (``tvm.cpu(0)`` for llvm)."""
    return make_device(str(target).split()[0], 0)
