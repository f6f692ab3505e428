"""Pictures of schedules: regions InferBound gives vs what consumers read, layouts, graphs.

Nothing here is needed to compile; matplotlib is imported lazily (``pip install matplotlib``,
or the ``viz`` extra) and only by the functions that draw. The text renderers
(``layout_text``, ``graph_to_dot``, ``region_report``) need nothing beyond tepad.
"""
from __future__ import annotations

from .graph import graph_to_dot, render_graph_png, schedule_graph
from .layout import layout_cells, layout_text, plot_layout
from .regions import consumer_regions, plot_regions, region_report

INSTALL_HINT = ("matplotlib is needed to draw pictures: pip install matplotlib "
                "(or pip install -e '.[viz]' from a tepad checkout)")


class MissingDependency(RuntimeError):
    """An optional package needed for a picture is not installed."""


def require_matplotlib():
    """The ``matplotlib.pyplot`` module on the Agg backend, or ``MissingDependency``."""
    try:
        import matplotlib
    except ImportError:
        raise MissingDependency(INSTALL_HINT) from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    return plt


__all__ = ["schedule_graph", "graph_to_dot", "render_graph_png", "layout_cells", "layout_text",
           "plot_layout", "consumer_regions", "region_report", "plot_regions",
           "require_matplotlib", "MissingDependency", "INSTALL_HINT"]
