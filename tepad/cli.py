"""Command line: ``tepad demo``."""
from __future__ import annotations

import argparse


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="tepad", description="tepad tensor-expression compiler")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("demo", help="define, schedule, lower, build and run example kernels")
    ns = p.parse_args(argv)
    if ns.cmd == "demo":
        from .demo import main as demo_main
        return demo_main()
    return 2
