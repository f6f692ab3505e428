"""Matmul C = A @ B (fp32), scheduled the way TVM/Halide experts do on an x86 CPU.

The schedule lives in the package (``tepad.demo_matmul``, where its docstring explains the
register blocks per target) so that ``python -m tepad demo`` runs from an installed wheel;
``tepad run examples/matmul.py`` and the tuning templates use it from here.
"""
from tepad.demo_matmul import N, inputs, k_block, schedule, widths  # noqa: F401
