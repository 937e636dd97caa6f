"""Label smoothing's validation helpers, supplied and read-only:
`from helpers import check_classes, check_logits_target, check_options`."""

import math

import torch


def check_logits_target(logits, target):
    """Raise TypeError / ValueError unless logits is a finite float [N, C] and target an int64 [N]."""
    if not isinstance(logits, torch.Tensor):
        raise TypeError(f"logits must be a torch.Tensor, got {type(logits).__name__}")
    if logits.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"logits must be float32 or float64, got {logits.dtype}")
    if not isinstance(target, torch.Tensor):
        raise TypeError(f"target must be a torch.Tensor, got {type(target).__name__}")
    if target.dtype != torch.int64:
        raise TypeError(f"target must be int64 class indices, got {target.dtype}")
    if logits.dim() != 2 or logits.shape[1] < 1:
        raise ValueError(f"logits must be [N, C] with C >= 1, got shape {tuple(logits.shape)}")
    if target.shape != logits.shape[:1]:
        raise ValueError(f"target must have shape [N] = [{logits.shape[0]}], got {tuple(target.shape)}")
    if target.device != logits.device:
        raise ValueError(f"target must be on logits' device {logits.device}, got {target.device}")
    if not torch.isfinite(logits).all():
        raise ValueError("logits must contain only finite values")


def check_options(epsilon, ignore_index):
    """Raise TypeError / ValueError unless epsilon is a number in [0, 1] and ignore_index an int."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float):
        raise TypeError(f"epsilon must be a Python float or int, got {type(epsilon).__name__}")
    if not (math.isfinite(epsilon) and 0 <= epsilon <= 1):
        raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        raise TypeError(f"ignore_index must be a Python int, got {type(ignore_index).__name__}")


def check_classes(target, num_classes, ignore_index):
    """Raise ValueError unless every target is a class in [0, C) or ignore_index."""
    valid = ((target >= 0) & (target < num_classes)) | (target == ignore_index)
    if not valid.all():
        bad = target[~valid][0].item()
        raise ValueError(f"target values must be in [0, {num_classes}) or equal ignore_index={ignore_index}, "
                         f"got {bad}")
