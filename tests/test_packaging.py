"""What a fresh clone and an installed package carry: license, version, changelog, py.typed,
and the ``tepad.demo`` module the README's architecture map lists."""
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import tepad

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_license_is_apache_2():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]


def test_version_matches_pyproject():
    assert tepad.__version__ == PYPROJECT["project"]["version"]


@pytest.mark.parametrize("cmd", [[sys.executable, "-m", "tepad", "--version"]])
def test_version_on_the_command_line(cmd):
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"tepad {tepad.__version__}"


def test_cli_main_version(capsys):
    from tepad.cli import main
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"tepad {tepad.__version__}"


def test_changelog_has_this_version_and_unreleased():
    text = (ROOT / "CHANGELOG.md").read_text()
    heads = [line[3:].strip() for line in text.splitlines() if line.startswith("## ")]
    assert heads[0] == "Unreleased"
    assert tepad.__version__ in heads


def test_py_typed_is_package_data():
    assert (ROOT / "tepad" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["tepad"]


def test_demo_module_imports_and_is_an_attribute():
    import tepad.demo
    assert callable(tepad.demo.main)
    out = subprocess.run([sys.executable, "-c", "import tepad; print(callable(tepad.demo.main))"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "True", out.stderr


def test_slow_marker_is_registered():
    markers = PYPROJECT["tool"]["pytest"]["ini_options"]["markers"]
    assert any(m.startswith("slow:") for m in markers)


def test_demo_kernel_lives_in_the_package():
    """The demo's matmul schedule is package code (an installed wheel has no examples/), and
    examples/matmul.py re-exports that one copy."""
    import importlib.util
    from pathlib import Path

    import tepad
    import tepad.demo_matmul
    pkg = Path(tepad.__file__).resolve().parent
    assert Path(tepad.demo_matmul.__file__).resolve().parent == pkg
    example = pkg.parent / "examples" / "matmul.py"
    spec = importlib.util.spec_from_file_location("_example_matmul", example)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.schedule is tepad.demo_matmul.schedule
