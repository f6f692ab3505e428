"""Writing one script's section of ``benchmarks/RESULTS.md`` and leaving the others alone, and
the CPU name the sections quote."""
from __future__ import annotations

import platform
from pathlib import Path


def cpu_name() -> str:
    """The CPU's marketing name (``/proc/cpuinfo``'s model name), else what platform knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def write_section(path, text, heading: str, begin: str, end: str) -> None:
    """Replace the section of ``path`` that runs from ``heading`` (the last one before the
    ``begin`` marker, or the marker itself) through the ``end`` marker by ``text``; append
    ``text`` when the file has no such markers."""
    p = Path(path)
    old = p.read_text() if p.exists() else ""
    if begin in old and end in old:
        start = old.rfind(heading, 0, old.index(begin))
        start = old.index(begin) if start < 0 else start
        new = old[:start] + text + old[old.index(end) + len(end):]
    else:
        new = old.rstrip("\n") + "\n\n" + text + "\n"
    p.write_text(new)
