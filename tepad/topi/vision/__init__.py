"""TVM's ``topi.vision``: ``reorg`` (YOLO's space-to-channel rearrangement)."""
from .reorg import reorg

__all__ = ["reorg"]
