"""The walls between tepad's parts, read from the source with ``ast`` (every import, at module
level or inside a function):

* packages import only downwards: config -> errors -> support -> target -> tir -> arith -> tensor ->
  schedule -> bound -> lower -> codegen -> runtime -> backend (one Backend per target kind), with
  the face (te, driver, layout, testing, viz, fuzz, demo,
  cli, the top-level package) above them all;
* no tepad import sits inside a function body (optional third-party packages may), except the
  few listed in ``FUNCTION_IMPORTS``, each with the cycle it breaks or the heavy optional
  dependency it defers;
* no cycle between packages, and no cycle between modules at import time;
* islpy is imported by exactly one module, the ISL bridge.
"""
import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1] / "tepad"

LAYERS = ["_lazy", "config", "errors", "support", "target", "tir", "arith", "tensor", "schedule", "bound",
          "lower", "codegen", "runtime", "backend"]
FACE = ["te", "topi", "transform", "driver", "layout", "testing", "viz", "fuzz", "demo", "demo_matmul", "cli",
        "compat", "script", "_ffi", "rpc",
        "nd", "error", "container", "ir", "contrib", "autotvm", "auto_scheduler", "",
        "__main__"]
ISL_BRIDGE = "tepad.arith.isl_bridge"

# (module, the tepad module it imports inside a function): why the import cannot be at the top
FUNCTION_IMPORTS = {
    ("tepad.auto_scheduler.measure", "tepad.auto_scheduler.search_task"):
        "cycle: recover_measure_input (TVM keeps it in measure) makes a SearchTask, whose "
        "module measures through this one",
    ("tepad.tir.expr", "tepad.tir.printer"):
        "cycle: the printer is written over the IR classes, whose str/repr/script call it",
    ("tepad.tir.expr", "tepad.tir.structural"):
        "cycle: structural equality is written over the IR classes (and Buffer, which needs "
        "them), whose ==/bool call it",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (ROOT.parent / rel).with_suffix(".py").is_file() or \
        (ROOT.parent / rel / "__init__.py").is_file()


def _targets(mod: str, is_pkg: bool, node) -> list:
    """The modules an import statement loads (``from p import m`` loads p.m when m is one)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = mod.split(".") if is_pkg else mod.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module
    out = []
    for a in node.names:
        sub = f"{target}.{a.name}"
        out.append(sub if _is_module(sub) else target)
    return out


def _imports():
    """``[(module, imported, line, inside_function)]`` for every import in tepad."""
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        mod = _module_name(path)
        tree = ast.parse(path.read_text(), str(path))
        in_function = set()
        for f in ast.walk(tree):
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                in_function.update(id(n) for n in ast.walk(f)
                                   if isinstance(n, (ast.Import, ast.ImportFrom)))
        for n in ast.walk(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                for t in _targets(mod, path.name == "__init__.py", n):
                    out.append((mod, t, n.lineno, id(n) in in_function))
            elif _lazy_target(n):   # ``x = lazy_module("pkg")`` (tepad._lazy) imports pkg
                out.append((mod, _lazy_target(n), n.lineno, False))
    return out


def _lazy_target(node):
    """The module a module-level ``lazy_module("name", ...)`` call stands for, else None."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_module" and \
            node.args and isinstance(node.args[0], ast.Constant):
        return node.args[0].value
    return None


IMPORTS = _imports()


def _package(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else ""


def _rank(pkg: str) -> int:
    return LAYERS.index(pkg) if pkg in LAYERS else len(LAYERS)


def _tepad_imports():
    return [(m, t, line, fn) for m, t, line, fn in IMPORTS
            if t == "tepad" or t.startswith("tepad.")]


def test_every_package_is_placed():
    pkgs = {_package(m) for m, *_ in IMPORTS} | {_package(t) for _, t, *_ in _tepad_imports()}
    unplaced = sorted(p for p in pkgs if p not in LAYERS and p not in FACE)
    assert not unplaced, f"packages with no place in the layering: {unplaced}"


def test_imports_go_down_the_layers():
    up = []
    for m, t, line, _ in _tepad_imports():
        a, b = _package(m), _package(t)
        if a != b and _rank(b) >= _rank(a) and _rank(a) < len(LAYERS):
            up.append(f"{m}:{line} imports {t} ({a} is below {b})")
    assert not up, "upward imports:\n" + "\n".join(up)


def test_no_tepad_import_inside_a_function():
    hidden = [f"{m}:{line} imports {t}" for m, t, line, fn in _tepad_imports()
              if fn and (m, t) not in FUNCTION_IMPORTS]
    assert not hidden, "tepad imports inside function bodies (not in FUNCTION_IMPORTS):\n" + \
        "\n".join(hidden)


def test_function_level_imports_are_still_needed():
    """Every FUNCTION_IMPORTS entry is an import that exists (a stale entry would hide one)."""
    present = {(m, t) for m, t, _, fn in _tepad_imports() if fn}
    stale = sorted(set(FUNCTION_IMPORTS) - present)
    assert not stale, f"FUNCTION_IMPORTS entries with no such import: {stale}"


def test_no_cycle_between_packages():
    g = nx.DiGraph()
    for m, t, _, _ in _tepad_imports():
        a, b = _package(m), _package(t)
        if a != b and b != "":          # everything may be reached from the top package
            g.add_edge(a or "tepad", b)
    cycles = list(nx.simple_cycles(g))
    assert not cycles, f"package cycles: {cycles}"


def test_no_cycle_between_modules():
    g = nx.DiGraph()
    for m, t, _, fn in _tepad_imports():
        if not fn and m != t:
            g.add_edge(m, t)
    cycles = [c for c in nx.simple_cycles(g)]
    assert not cycles, "module import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_islpy_only_in_the_bridge():
    users = sorted({m for m, t, _, _ in IMPORTS if t == "islpy" or t.startswith("islpy.")})
    assert users == [ISL_BRIDGE], f"islpy imported by {users}; only {ISL_BRIDGE} may"


def test_the_checker_sees_imports():
    """The checks above are only as good as the import list: it must see both kinds."""
    assert any(t == "tepad.tir.expr" for _, t, _, _ in IMPORTS)
    assert any(fn for *_, fn in IMPORTS)        # optional deps (matplotlib) inside functions
    assert ("tepad.lower.pipeline", "tepad.bound.read_check") in {(m, t) for m, t, _, _ in IMPORTS}


def test_code_generators_and_runtime_import_no_lowering_pass():
    """The IR helpers they share with the passes (launches, wmma calls) live in tir."""
    bad = sorted(f"{m} imports {t}" for m, t, _, _ in _tepad_imports()
                 if _package(m) in ("codegen", "runtime") and t.startswith("tepad.lower.passes"))
    assert not bad, "\n".join(bad)
