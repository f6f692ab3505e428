"""TVM's ``topi.vision.rcnn``: region-of-interest pooling of R-CNN detectors
(``roi_align_nchw`` / ``roi_align_nhwc``, ``roi_pool_nchw``) and Faster R-CNN's region
``proposal`` layer."""
from .roi_align import roi_align_nchw, roi_align_nhwc
from .roi_pool import roi_pool_nchw
from .proposal import proposal

__all__ = ["roi_align_nchw", "roi_align_nhwc", "roi_pool_nchw", "proposal"]
