"""Pictures of schedules: regions InferBound gives vs what consumers read, layouts, graphs.

Nothing here is needed to compile; matplotlib is imported lazily (``pip install matplotlib``,
or the ``viz`` extra) and only by the functions that draw. The text renderers
(``layout_text``, ``graph_to_dot``, ``region_report``) need nothing beyond tepad.
"""
from __future__ import annotations

from .deps import INSTALL_HINT, MissingDependency, require_matplotlib
from .graph import graph_to_dot, render_graph_png, schedule_graph
from .layout import layout_cells, layout_text, plot_layout
from .regions import consumer_regions, plot_regions, region_report

__all__ = ["schedule_graph", "graph_to_dot", "render_graph_png", "layout_cells", "layout_text",
           "plot_layout", "consumer_regions", "region_report", "plot_regions",
           "require_matplotlib", "MissingDependency", "INSTALL_HINT"]
