"""tests/gpu: the helpers next to the tests are importable; ``emulate_cuda`` sets
``TEPAD_CUDA=emulate`` for a test (the emulator tests use it through ``pytestmark``)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture
def emulate_cuda(monkeypatch):
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
