"""Cross-entropy with label smoothing (Szegedy et al., 2016, section 7). Implement smoothed_cross_entropy below;
the helpers check the contract for you."""

import math

import torch


def _check_logits_target(logits, target):
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


def _check_options(epsilon, ignore_index):
    """Raise TypeError / ValueError unless epsilon is a number in [0, 1] and ignore_index an int."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float):
        raise TypeError(f"epsilon must be a Python float or int, got {type(epsilon).__name__}")
    if not (math.isfinite(epsilon) and 0 <= epsilon <= 1):
        raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        raise TypeError(f"ignore_index must be a Python int, got {type(ignore_index).__name__}")


def _check_classes(target, num_classes, ignore_index):
    """Raise ValueError unless every target is a class in [0, C) or ignore_index."""
    valid = ((target >= 0) & (target < num_classes)) | (target == ignore_index)
    if not valid.all():
        bad = target[~valid][0].item()
        raise ValueError(f"target values must be in [0, {num_classes}) or equal ignore_index={ignore_index}, "
                         f"got {bad}")


def smoothed_cross_entropy(logits, target, epsilon=0.1, ignore_index=-100):
    """Mean over non-ignored rows of -sum_c q_c log p_c, with q = (1 - epsilon) one-hot(target) + epsilon / C.

    logits: [N, C] float; target: [N] int64 (a class, or ignore_index). Returns a 0-d tensor of logits' dtype;
    0.0 (with zero gradient) when every row is ignored.
    """
    _check_logits_target(logits, target)
    _check_options(epsilon, ignore_index)
    _check_classes(target, logits.shape[1], ignore_index)
    # 1. a stable log-softmax over the classes (subtract the log-sum-exp of each row)
    # 2. per row: (1 - epsilon) * (-log p of the target) + epsilon * mean over all C classes of (-log p)
    #    (ignored rows have no valid target: give them any class, then zero their loss)
    # 3. divide the sum by the number of rows that count, at least 1
    raise NotImplementedError("smoothed_cross_entropy: follow steps 1-3 above")
