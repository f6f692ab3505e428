"""The best-so-far curve of a tuning log: GFLOP/s of the best state after each trial, as
numbers (``best_so_far``) and as a picture (``plot_curve``, matplotlib)."""
from __future__ import annotations


from ..errors import TepadError
from .measure import result_cost
from .measure_record import load_records


def best_so_far(log_file, workload_key, flop) -> list:
    """GFLOP/s of the best successful record of ``workload_key`` among the first k records
    of ``log_file`` (in the log's order), for k = 1 .. n; 0.0 until one succeeds."""
    out, best = [], float("inf")
    for inp, res in load_records(log_file):
        if inp.task.workload_key != workload_key:
            continue
        if res.error_no == 0 and res.costs:
            best = min(best, result_cost(res))
        out.append(flop / best / 1e9 if best < float("inf") else 0.0)
    return out


def plot_curve(curves, png_path, title="auto-scheduler: best so far"):
    """Draw ``curves`` ({label: [GFLOP/s after trial 1, 2, ...]}) into ``png_path``."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TepadError("the best-so-far curve needs matplotlib (pip install matplotlib)") \
            from None
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for label, ys in curves.items():
        ax.step(range(1, len(ys) + 1), ys, where="post", label=label)
    ax.set_xlabel("trials")
    ax.set_ylabel("GFLOP/s (best so far)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)
    return png_path
