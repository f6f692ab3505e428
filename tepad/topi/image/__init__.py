"""TVM's ``topi.image``: ``resize1d``, ``resize2d``, ``resize3d`` and the older ``resize``;
``affine_grid``, ``crop_and_resize``."""
from .crop import crop_and_resize
from .grid import affine_grid
from .resize import resize, resize1d, resize2d, resize3d

__all__ = ["resize", "resize1d", "resize2d", "resize3d", "affine_grid", "crop_and_resize"]
