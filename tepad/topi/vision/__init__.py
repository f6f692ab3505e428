"""TVM's ``topi.vision``: ``reorg`` (YOLO's space-to-channel rearrangement), the
object-detection operators (``get_valid_counts``, ``non_max_suppression``,
``all_class_non_max_suppression``; SSD's ``ssd.multibox_prior`` /
``multibox_transform_loc`` / ``multibox_detection``) and the R-CNN operators of
``topi.vision.rcnn`` (``roi_align_nchw`` / ``roi_align_nhwc``, ``roi_pool_nchw``,
``proposal``)."""
from . import rcnn, ssd
from .nms import all_class_non_max_suppression, get_valid_counts, non_max_suppression
from .rcnn import proposal, roi_align_nchw, roi_align_nhwc, roi_pool_nchw
from .reorg import reorg
from .ssd import multibox_detection, multibox_prior, multibox_transform_loc

__all__ = ["reorg", "rcnn", "ssd", "roi_align_nchw", "roi_align_nhwc", "roi_pool_nchw",
           "proposal", "get_valid_counts", "non_max_suppression",
           "all_class_non_max_suppression", "multibox_prior", "multibox_transform_loc",
           "multibox_detection"]
