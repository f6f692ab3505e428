"""README's Quick start: two commands, the first installs tepad alone and runs the demo, the
second installs the test extras and runs the suite exactly as CI (.ci/run) does."""
import re
import shlex
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Quick start"):]
    section = section[:section.index("\n## ", 3)]
    (block,) = re.findall(r"```bash\n(.*?)```", section, re.S)
    return section, [line for line in block.splitlines() if line.strip()]


def steps(command):
    return [shlex.split(part) for part in command.split("&&")]


def test_two_commands_venv_plain_install_demo():
    _, cmds = quick_start_commands()
    assert len(cmds) == 2
    first = steps(cmds[0])
    assert first[0][1:] == ["-m", "venv", ".venv"] and first[0][0].startswith("python3")
    assert first[1] == [".", ".venv/bin/activate"]
    assert first[2] == ["python", "-m", "pip", "install", "-e", "."]       # no extras
    assert first[3] == ["python", "-m", "tepad", "demo"]


def _ci_lines():
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    pip = [shlex.split(x) for x in lines if x.startswith("python -m pip install")]
    pytest_ = [shlex.split(x) for x in lines if x.startswith("python -m pytest")]
    return pip, pytest_


def _without_quiet_flags(argv):
    return [a for a in argv if a not in ("--quiet", "-q", "--disable-pip-version-check")]


def test_second_command_is_what_ci_runs():
    _, cmds = quick_start_commands()
    install, run = steps(cmds[1])
    pip, pytest_ = _ci_lines()
    assert [_without_quiet_flags(p) for p in pip][0] == _without_quiet_flags(install)
    assert install[-1] == ".[test]"
    assert pytest_[0] == run                      # the first pytest line: the whole suite
    assert "not slow" not in run                  # CI keeps the slow tests


def test_test_extras_are_not_needed_to_use_tepad():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {re.split(r"[<>=\[ ]", d)[0] for d in project["dependencies"]}
    assert names == {"numpy", "islpy", "llvmlite", "networkx"}
    heavy = {"ray", "xgboost-cpu", "nvidia-cuda-nvcc-cu12", "matplotlib", "scipy"}
    assert not names & heavy


def test_readme_says_how_long_the_suite_takes_and_how_to_skip_slow_tests():
    section, _ = quick_start_commands()
    assert re.search(r"about \d+( to \d+)? minutes", section)
    assert '-m "not slow"' in section
