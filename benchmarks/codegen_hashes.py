#!/usr/bin/env python3
"""Fingerprint the code every test generates, to check that a refactor changes no kernel.

As a pytest plugin it records, per test, what reaches LLVM: the hash of every LLVM IR text
parsed (the CPU kernels before optimization, the NVPTX kernels, imported LLVM), the options of
every TargetMachine made (CPU, features, optimization level) and the hash of every assembly
text emitted (PTX included), in call order::

    PYTHONPATH=benchmarks python -m pytest tests -p codegen_hashes -p no:randomly \\
        --hypothesis-seed=0 --codegen-hashes=/tmp/before.json

Run it on the tree before and after a change, then compare::

    python benchmarks/codegen_hashes.py /tmp/before.json /tmp/after.json [--ignore FILE]

Tests whose code differs between two runs of the *same* tree (timing-driven tuning picks
another schedule, for example) are listed in the ``--ignore`` file, one test id a line; the
comparison reports every other test whose record differs, and exits 1 if there is one.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys

_records: dict[str, list] = {}
_current = ["<collection>"]


def _digest(text) -> str:
    if isinstance(text, (bytes, bytearray)):
        data = bytes(text)
    else:
        data = str(text).encode()
    return hashlib.sha256(data).hexdigest()[:16]


def _log(event) -> None:
    _records.setdefault(_current[0], []).append(event)


def _install() -> None:
    import llvmlite.binding as llvm

    parse = llvm.parse_assembly

    def parse_assembly(text, *args, **kwargs):
        _log(["ir", _digest(text)])
        return parse(text, *args, **kwargs)

    llvm.parse_assembly = parse_assembly

    create = llvm.Target.create_target_machine

    def create_target_machine(self, cpu="", features="", opt=2, *args, **kwargs):
        _log(["tm", str(self), cpu, features, opt, [str(a) for a in args],
              sorted((k, str(v)) for k, v in kwargs.items())])
        return create(self, cpu, features, opt, *args, **kwargs)

    llvm.Target.create_target_machine = create_target_machine

    emit = llvm.TargetMachine.emit_assembly

    def emit_assembly(self, module):
        out = emit(self, module)
        _log(["asm", _digest(out)])
        return out

    llvm.TargetMachine.emit_assembly = emit_assembly


def pytest_addoption(parser):
    parser.addoption("--codegen-hashes", metavar="PATH",
                     help="write each test's generated-code fingerprints to PATH (JSON)")


def pytest_configure(config):
    if config.getoption("--codegen-hashes"):
        _install()


def pytest_runtest_setup(item):
    _current[0] = item.nodeid


def pytest_runtest_teardown(item):
    _current[0] = item.nodeid


def pytest_sessionfinish(session, exitstatus):
    path = session.config.getoption("--codegen-hashes")
    if path:
        with open(path, "w") as f:
            json.dump(_records, f, indent=0, sort_keys=True)


def compare(before: dict, after: dict, ignore: set) -> list[str]:
    """Test ids (not in ``ignore``) whose records differ or exist in one run only."""
    return sorted(t for t in set(before) | set(after)
                  if t not in ignore and before.get(t) != after.get(t))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--ignore", help="file of test ids known to vary between identical runs")
    a = ap.parse_args(argv)
    before = json.load(open(a.before))
    after = json.load(open(a.after))
    ignore = set()
    if a.ignore:
        ignore = {line.strip() for line in open(a.ignore) if line.strip()}
    diff = compare(before, after, ignore)
    events = sum(len(v) for v in before.values())
    print(f"{len(before)} tests, {events} codegen events before; {len(after)} tests after; "
          f"{len(ignore)} ignored; {len(diff)} differ")
    for t in diff:
        print("  ", t, f"({len(before.get(t, []))} -> {len(after.get(t, []))} events)")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
