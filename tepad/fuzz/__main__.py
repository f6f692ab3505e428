"""``python -m tepad.fuzz --cases N --seed S [--exact] [--gpu]``: the schedule fuzzer.

The parent process supervises one worker process (``--worker``) that runs the cases in order
and reports each as a JSON line. If the worker dies (a crash: a signal, an abort) or a case
runs longer than ``--timeout`` seconds, the parent records that case and starts a new worker
at the next one, so a crash is counted, not fatal. Failures are shrunk in the worker (greedy
over the recorded choices) and printed as runnable tepad programs.

Case ``i`` of seed ``S`` is always the same program: ``--replay i`` prints its reproducer.
"""
from __future__ import annotations

import argparse
import json
import os
import selectors
import subprocess
import sys
import time

from .case import Config
from .generator import generate
from .runner import FAILURES, exact_available, run_source
from .shrink import shrink
from .sources import RandomSource


def _case_seed(seed, i):
    return f"tepad-fuzz:{seed}:{i}"


def _config(args):
    return Config(max_stages=args.max_stages, illegal_rate=args.illegal_rate,
                  scan_percent=args.scan_percent, gpu=args.gpu,
                  nested_split_percent=args.nested_splits,
                  scan_inputs_percent=args.scan_inputs,
                  gpu_double_buffer_percent=args.gpu_double_buffer,
                  auto_scheduler_percent=args.auto_scheduler)


def worker(args):
    cfg = _config(args)
    out = sys.stdout
    for i in range(args.start, args.start + args.cases):
        out.write(json.dumps({"event": "start", "i": i}) + "\n")
        out.flush()
        t0 = time.monotonic()
        src = RandomSource(_case_seed(args.seed, i))
        res = run_source(src, cfg, args.exact)
        rec = {"event": "done", "i": i, "status": res.status, "where": res.where,
               "seconds": round(time.monotonic() - t0, 3)}
        if res.failed:
            rec["detail"] = res.detail
            script = res.case.script(exact=args.exact) if res.case is not None else ""
            if not args.no_shrink:
                out.write(json.dumps({"event": "shrinking", "i": i}) + "\n")
                out.flush()
                try:
                    best, small = shrink(res.choices, res.signature(), cfg, args.exact,
                                         budget_s=args.shrink_seconds)
                except Exception as err:  # noqa: BLE001 - keep the unshrunk reproducer
                    best, small = res.choices, res
                    rec["shrink_error"] = repr(err)
                if small.case is not None:
                    script = small.case.script(exact=args.exact)
                    rec["shrunk_detail"] = small.detail
                rec["choices"] = best
            rec["script"] = script
        out.write(json.dumps(rec) + "\n")
        out.flush()
    return 0


def _spawn(args, start, count):
    cmd = [sys.executable, "-m", "tepad.fuzz", "--worker", "--seed", str(args.seed),
           "--start", str(start), "--cases", str(count), "--max-stages", str(args.max_stages),
           "--illegal-rate", str(args.illegal_rate), "--scan-percent", str(args.scan_percent),
           "--shrink-seconds", str(args.shrink_seconds),
           "--nested-splits", str(args.nested_splits), "--scan-inputs", str(args.scan_inputs),
           "--gpu-double-buffer", str(args.gpu_double_buffer),
           "--auto-scheduler", str(args.auto_scheduler)]
    if args.exact:
        cmd.append("--exact")
    if args.gpu:
        cmd.append("--gpu")
    if args.no_shrink:
        cmd.append("--no-shrink")
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            bufsize=1)


def supervise(args):
    counts = {k: 0 for k in ("pass", "refused", *FAILURES, "timeout")}
    failures = []
    t_start = time.monotonic()
    end = args.start + args.cases
    nxt = args.start
    done = 0
    mode = "interval" + (" + exact" if args.exact and exact_available() else "")
    if args.exact and not exact_available():
        print("note: --exact requested but tepad.bound.exact is not available; interval only")
    print(f"tepad.fuzz: {args.cases} cases from seed {args.seed} (case {args.start}..{end - 1}),"
          f" bounds: {mode}, bounds_check=True" +
          (", GPU (emulated, race check)" if args.gpu else ""), flush=True)
    report_file = open(args.report, "a") if args.report else None
    while nxt < end:
        proc = _spawn(args, nxt, end - nxt)
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        current, started, shrinking = None, time.monotonic(), False
        killed = False
        while True:
            limit = args.timeout + (args.shrink_seconds + args.timeout if shrinking else 0)
            ready = sel.select(timeout=1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                if current is not None and time.monotonic() - started > limit:
                    proc.kill()
                    proc.wait()
                    killed = True
                    counts["timeout"] += 1
                    rec = {"i": current, "status": "timeout",
                           "detail": f"no result after {limit:.0f} s", "seconds": limit}
                    failures.append(rec)
                    if report_file:
                        report_file.write(json.dumps(rec) + "\n")
                        report_file.flush()
                    print(f"case {current}: TIMEOUT (> {limit:.0f} s); replay with "
                          f"--replay {current}", flush=True)
                    done += 1
                    nxt = current + 1
                    current = None
                    break
                continue
            line = proc.stdout.readline()
            if not line:
                break
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec["event"] == "start":
                current, started, shrinking = rec["i"], time.monotonic(), False
                continue
            if rec["event"] == "shrinking":
                shrinking = True
                continue
            current = None
            done += 1
            nxt = rec["i"] + 1
            st = rec["status"]
            counts[st] = counts.get(st, 0) + 1
            if st in FAILURES:
                failures.append(rec)
                print(f"\n=== case {rec['i']}: {st.upper()} at {rec['where']}\n"
                      f"{rec.get('detail', '')}\n--- minimal reproducer "
                      f"(python -m tepad.fuzz --seed {args.seed} --replay {rec['i']}):\n"
                      f"{rec.get('script', '')}", flush=True)
            if report_file:
                report_file.write(json.dumps(rec) + "\n")
                report_file.flush()
            if done % args.progress == 0:
                el = time.monotonic() - t_start
                bad = sum(counts[k] for k in (*FAILURES, "timeout"))
                print(f"[{done}/{args.cases}] {el:.0f} s, {done / el:.1f} cases/s: "
                      f"{counts['pass']} pass, {counts['refused']} refused as expected, "
                      f"{bad} failures", flush=True)
        if proc.poll() is None and nxt >= end:
            proc.wait()
        rc = proc.wait()
        if current is not None:     # the worker died inside a case
            err = proc.stderr.read()[-3000:]
            counts["crash"] += 1
            rec = {"i": current, "status": "crash", "detail": err}
            failures.append(rec)
            if report_file:
                report_file.write(json.dumps(rec) + "\n")
                report_file.flush()
            print(f"\n=== case {current}: CRASH (worker exit status {rc})\n{err}\n"
                  f"replay: python -m tepad.fuzz --seed {args.seed} --replay {current}",
                  flush=True)
            done += 1
            nxt = current + 1
        elif rc != 0 and nxt < end and not killed:
            err = proc.stderr.read()[-3000:]
            print(f"worker exited with status {rc} between cases:\n{err}", flush=True)
            if rc < 0:
                counts["crash"] += 1
                nxt += 1
                done += 1
    el = time.monotonic() - t_start
    passed = counts["pass"] + counts["refused"]
    non_tepad = counts["exception"]
    print(f"\n{done} cases: {passed} passed, {counts['mismatch']} mismatches, "
          f"{counts['crash']} crashes, {non_tepad} non-TepadError exceptions")
    print(f"  details: {counts['refused']} illegal schedules refused with TepadError, "
          f"{counts['out_of_bounds']} out-of-bounds accesses caught, "
          f"{counts['missed_error']} illegal schedules accepted, "
          f"{counts['legal_refused']} legal schedules refused, {counts['timeout']} timeouts; "
          f"{el:.0f} s ({done / max(el, 1e-9):.1f} cases/s)", flush=True)
    if report_file:
        report_file.close()
    return 0 if not failures else 1


def replay(args):
    src = RandomSource(_case_seed(args.seed, args.replay))
    cfg = _config(args)
    case = generate(src, cfg)
    print(case.script(exact=args.exact))
    res = run_source(RandomSource(_case_seed(args.seed, args.replay)), cfg, args.exact)
    print(f"# outcome: {res.status} {res.where}\n# " +
          "\n# ".join((res.detail or "").splitlines()))
    return 0 if not res.failed else 1


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tepad.fuzz", description=__doc__.split("\n")[0])
    p.add_argument("--cases", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="index of the first case")
    p.add_argument("--exact", action="store_true", help="also lower with exact (ISL) bounds")
    p.add_argument("--max-stages", type=int, default=5)
    p.add_argument("--illegal-rate", type=int, default=8,
                   help="percent of cases with a deliberately illegal step")
    p.add_argument("--scan-percent", type=int, default=0,
                   help="percent of drawn ops that are a te.scan (0: none; other values "
                        "change which case a seed draws)")
    p.add_argument("--nested-splits", type=int, default=0,
                   help="percent of the splits drawn for rfactor, cache_write, bound loops "
                        "and loop transforms that split a piece again by a factor that does "
                        "not divide it or exceeds it (0: none; other values change which "
                        "case a seed draws)")
    p.add_argument("--scan-inputs", type=int, default=0,
                   help="percent of drawn scans that read x through a stage listed in "
                        "inputs= (often inlined); needs --scan-percent")
    p.add_argument("--gpu", action="store_true",
                   help="GPU schedules (blocks, threads, shared/local caches, cross-thread "
                        "reductions) built for cuda through the emulator with its race check")
    p.add_argument("--gpu-double-buffer", type=int, default=0,
                   help="with --gpu: percent of the shared/local cache stages computed at a "
                        "loop that get double_buffer (0: none; other values change which "
                        "case a seed draws)")
    p.add_argument("--auto-scheduler", type=int, default=0,
                   help="percent of cases whose schedule is a random annotation of the "
                        "auto-scheduler's sketch of a known operator or a random DAG (0: "
                        "none; other values change which case a seed draws)")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per case")
    p.add_argument("--shrink-seconds", type=float, default=60.0)
    p.add_argument("--no-shrink", action="store_true")
    p.add_argument("--progress", type=int, default=100, help="print progress every K cases")
    p.add_argument("--report", help="append one JSON line per case to this file")
    p.add_argument("--replay", type=int, help="print and run case REPLAY only")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.replay is not None:
        return replay(args)
    if args.worker:
        return worker(args)
    return supervise(args)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
