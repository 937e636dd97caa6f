"""A float or int32 target is not refused with TypeError: the check of its dtype is missing.

Overrides: check_logits_target
"""

import torch


def check_logits_target(logits, target):
    if not isinstance(logits, torch.Tensor):
        raise TypeError(f"logits must be a torch.Tensor, got {type(logits).__name__}")
    if logits.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"logits must be float32 or float64, got {logits.dtype}")
    if not isinstance(target, torch.Tensor):
        raise TypeError(f"target must be a torch.Tensor, got {type(target).__name__}")
    if logits.dim() != 2 or logits.shape[1] < 1:
        raise ValueError(f"logits must be [N, C] with C >= 1, got shape {tuple(logits.shape)}")
    if target.shape != logits.shape[:1]:
        raise ValueError(f"target must have shape [N], got {tuple(target.shape)}")
    if not torch.isfinite(logits).all():
        raise ValueError("logits must contain only finite values")
