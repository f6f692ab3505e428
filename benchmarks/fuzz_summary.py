"""Summarize long fuzzer runs: ``python benchmarks/fuzz_summary.py RUN.jsonl [...]``.

Each file is the ``--report`` of one ``python -m tepad.fuzz`` run (one JSON line per case).
Prints a markdown table (cases, outcomes, time) per file and in total, plus every failure,
so the figures quoted in docs/fuzzing.md come from the reports themselves.
"""
from __future__ import annotations

import collections
import json
import statistics
import sys

OUTCOMES = ("pass", "refused", "mismatch", "out_of_bounds", "exception", "crash",
            "missed_error", "legal_refused", "timeout")


def load(path):
    recs = {}
    with open(path) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if "i" in r and "status" in r:
                recs[r["i"]] = r              # a re-run of a case replaces the earlier line
    return list(recs.values())


def table(rows):
    head = "| run | cases | " + " | ".join(OUTCOMES) + " | median s/case | p99 s/case |"
    out = [head, "|" + "---|" * (len(OUTCOMES) + 4)]
    for name, recs in rows:
        c = collections.Counter(r["status"] for r in recs)
        secs = sorted(r.get("seconds", 0.0) for r in recs if "seconds" in r) or [0.0]
        p99 = secs[min(len(secs) - 1, int(0.99 * len(secs)))]
        out.append(f"| {name} | {len(recs)} | " + " | ".join(str(c.get(k, 0)) for k in OUTCOMES)
                   + f" | {statistics.median(secs):.2f} | {p99:.2f} |")
    return "\n".join(out)


def main(paths):
    rows = [(p, load(p)) for p in paths]
    everything = [r for _, recs in rows for r in recs]
    print(table(rows + [("total", everything)]))
    bad = [(p, r) for p, recs in rows for r in recs if r["status"] not in ("pass", "refused")]
    for p, r in bad:
        print(f"\n- {p} case {r['i']}: {r['status']} at {r.get('where', '')}: "
              f"{(r.get('detail') or '').splitlines()[:1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
