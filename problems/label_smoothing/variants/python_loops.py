"""Variant: a Python loop over rows with math-module arithmetic on each log-probability."""

import math

import torch


def _check_logits_target(logits, target):
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


def _check_options(epsilon, ignore_index):
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float):
        raise TypeError(f"epsilon must be a Python float or int, got {type(epsilon).__name__}")
    if not (math.isfinite(epsilon) and 0 <= epsilon <= 1):
        raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        raise TypeError(f"ignore_index must be a Python int, got {type(ignore_index).__name__}")


def _check_classes(target, num_classes, ignore_index):
    valid = ((target >= 0) & (target < num_classes)) | (target == ignore_index)
    if not valid.all():
        bad = target[~valid][0].item()
        raise ValueError(f"target values must be in [0, {num_classes}) or equal ignore_index={ignore_index}, "
                         f"got {bad}")


def smoothed_cross_entropy(logits, target, epsilon=0.1, ignore_index=-100):
    _check_logits_target(logits, target)
    _check_options(epsilon, ignore_index)
    num_classes = logits.shape[1]
    _check_classes(target, num_classes, ignore_index)
    total = logits.sum() * 0.0  # a zero that keeps the graph, for batches where no row counts
    count = 0
    for row in range(logits.shape[0]):
        label = int(target[row])
        if label == ignore_index:
            continue
        z = logits[row]
        top = z.max().detach()
        log_norm = top + torch.log(torch.exp(z - top).sum())
        log_p = z - log_norm
        smooth = sum(-log_p[c] for c in range(num_classes)) / num_classes
        total = total + (1 - epsilon) * -log_p[label] + epsilon * smooth
        count += 1
    return total / max(count, 1)
