"""TVM's graph-level hooks of the convolution operators (``topi.nn.conv2d_legalize``,
``conv2d_alter_layout``, ``conv2d_infer_layout``, ...): generic functions a target
specializes with ``.register(keys)``. tepad has no graph level (relay), so only their
defaults exist, as in TVM: the legalize / alter-layout hooks return None ("leave the
operator as it is"), the infer-layout hooks raise until a target registers one."""
from __future__ import annotations

from ...errors import TepadError
from ...target import generic_func


@generic_func
def conv2d_legalize(attrs, inputs, types):
    """Legalize a conv2d for the target: None (unchanged) unless registered."""
    return None


@generic_func
def conv2d_alter_layout(attrs, inputs, tinfos, out_type):
    """Change a conv2d's layout for the target: None (unchanged) unless registered."""
    return None


@generic_func
def conv2d_transpose_alter_layout(attrs, inputs, tinfos, out_type):
    """Change a conv2d_transpose's layout: None (unchanged) unless registered."""
    return None


@generic_func
def conv2d_transpose_legalize(attrs, inputs, types):
    """Legalize a conv2d_transpose: None (unchanged) unless registered."""
    return None


@generic_func
def conv3d_alter_layout(attrs, inputs, tinfos, out_type):
    """Change a conv3d's layout: None (unchanged) unless registered."""
    return None


@generic_func
def conv3d_transpose_legalize(attrs, inputs, types):
    """Legalize a conv3d_transpose: None (unchanged) unless registered."""
    return None


@generic_func
def conv2d_infer_layout(workload, cfg):
    """The (input, output) shapes and layouts of a conv2d workload under an AutoTVM config:
    a target must register it (TVM's default raises as well)."""
    raise TepadError("conv2d_infer_layout: no implementation is registered for the current "
                     "target; register one with topi.nn.conv2d_infer_layout.register(keys)")


@generic_func
def depthwise_conv2d_infer_layout(workload, cfg):
    """The (input, output) shapes and layouts of a depthwise conv2d workload: a target must
    register it (TVM's default raises as well)."""
    raise TepadError("depthwise_conv2d_infer_layout: no implementation is registered for the "
                     "current target; register one with "
                     "topi.nn.depthwise_conv2d_infer_layout.register(keys)")


__all__ = ["conv2d_legalize", "conv2d_alter_layout", "conv2d_transpose_alter_layout",
           "conv2d_transpose_legalize", "conv3d_alter_layout", "conv3d_transpose_legalize",
           "conv2d_infer_layout", "depthwise_conv2d_infer_layout"]
