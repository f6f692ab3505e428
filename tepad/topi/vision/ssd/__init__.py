"""TVM's ``topi.vision.ssd``: ``multibox_prior``, ``multibox_transform_loc``,
``multibox_detection``."""
from .multibox import multibox_detection, multibox_prior, multibox_transform_loc

__all__ = ["multibox_prior", "multibox_transform_loc", "multibox_detection"]
