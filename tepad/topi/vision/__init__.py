"""TVM's ``topi.vision``: ``reorg`` (YOLO's space-to-channel rearrangement) and the R-CNN
region-of-interest operators of ``topi.vision.rcnn`` (``roi_align_nchw`` /
``roi_align_nhwc``, ``roi_pool_nchw``)."""
from . import rcnn
from .rcnn import roi_align_nchw, roi_align_nhwc, roi_pool_nchw
from .reorg import reorg

__all__ = ["reorg", "rcnn", "roi_align_nchw", "roi_align_nhwc", "roi_pool_nchw"]
