"""The docs run: every ```python block of README.md and docs/*.md is executed, and user docs
cite no internal issue numbers.

Conventions (HTML comments, invisible when the markdown is rendered):

* The blocks of one file run in order in one namespace: a block continues the ones above it
  (``s`` defined in one block is used in the next).
* ``<!-- docs-setup ... -->`` (the code inside the comment, several lines allowed) runs first
  in that namespace: the imports and definitions a file's blocks take for granted.
  ``<!-- docs-setup fresh ... -->`` runs it again before *every* block instead, each block in a
  new namespace (for files whose blocks are separate variations of one kernel).
* ``<!-- fragment -->`` on the line before a block: the block is shown, not run (a piece of a
  larger program, or code that needs what the machine may not have, as a CUDA GPU).

Blocks run in a scratch directory that links the checkout's examples/, benchmarks/, docs/ and
tests/, without ``TEPAD_CUDA`` in the environment (a GPU block
sets ``os.environ["TEPAD_CUDA"] = "emulate"`` itself, as docs/gpu.md shows); what a file's
blocks change in ``os.environ`` is undone after it.
"""
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.S | re.M)
SETUP = re.compile(r"<!--\s*docs-setup(\s+fresh)?\s*\n(.*?)-->", re.S)
FRAGMENT = re.compile(r"<!--\s*fragment\s*-->\s*$")


def doc_blocks(path: Path):
    """``(setup code, fresh, [(line, code, is_fragment)])`` of one markdown file."""
    text = path.read_text()
    m = SETUP.search(text)
    setup, fresh = (m.group(2), bool(m.group(1))) if m else ("", False)
    blocks = []
    for b in FENCE.finditer(text):
        before = text[:b.start()].rstrip("\n").splitlines()
        blocks.append((text[:b.start()].count("\n") + 1, b.group(1),
                       bool(before and FRAGMENT.search(before[-1]))))
    return setup, fresh, blocks


def _run(code, where, ns):
    exec(compile(code, where, "exec"), ns)


# a tuning session (worker processes, a randomized search): about a minute
SLOW_DOCS = {"tuning.md"}


# the files with at least one python block (the others have nothing to run)
RUNNABLE = [p for p in DOCS if doc_blocks(p)[2]]


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW_DOCS
                                  else p for p in RUNNABLE], ids=lambda p: p.name)
def test_python_blocks_run(path, monkeypatch, tmp_path):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)     # a block that wants it sets it
    monkeypatch.setattr(os, "environ", os.environ.copy())
    monkeypatch.syspath_prepend(str(ROOT))
    # in a scratch directory (blocks write logs and libraries there) that sees the checkout's
    # examples/, benchmarks/ and docs/ as a user's working copy would
    for name in ("examples", "benchmarks", "docs", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    setup, fresh, blocks = doc_blocks(path)
    rel = path.relative_to(ROOT)
    ns = None
    ran = 0
    for line, code, fragment in blocks:
        if fragment:
            continue
        if ns is None or fresh:
            ns = {"__name__": f"docs_{path.stem}"}
            _run(setup, f"{rel} (docs-setup)", ns)
        _run(code, f"{rel}:{line}", ns)
        ran += 1
    assert ran, f"{rel}: every python block is marked as a fragment"


def test_conventions_are_recognized(tmp_path):
    p = tmp_path / "x.md"
    p.write_text("<!-- docs-setup\nx = 1\n-->\n\n```python\ny = x + 1\n```\n\n<!-- fragment -->\n"
                 "```python\nnot python at all\n```\n")
    setup, fresh, blocks = doc_blocks(p)
    assert setup.strip() == "x = 1" and not fresh
    assert [b[2] for b in blocks] == [False, True]


# "issue 16", "issue 17's", "issues 16 and 17", "(#16)" : internal tracker numbers
ISSUE = re.compile(r"\bissues?\s*#?\s*\d+", re.I)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_no_internal_issue_numbers(path):
    hits = []
    for k, line in enumerate(path.read_text().splitlines(), 1):
        for m in ISSUE.finditer(line):
            if "apache/tvm" in line and m.group(0).startswith("#"):
                continue                        # an upstream TVM pull request is a citation
            hits.append(f"{path.name}:{k}: {m.group(0)!r}")
    assert not hits, "internal issue numbers in user docs:\n" + "\n".join(hits)
