"""TVM's ``topi.image``: ``resize1d``, ``resize2d``, ``resize3d`` and the older ``resize``;
``affine_grid``, ``crop_and_resize``, ``grid_sample``."""
from .crop import crop_and_resize
from .grid import affine_grid
from .grid_sample import grid_sample
from .resize import resize, resize1d, resize2d, resize3d

__all__ = ["resize", "resize1d", "resize2d", "resize3d", "affine_grid", "crop_and_resize", "grid_sample"]
