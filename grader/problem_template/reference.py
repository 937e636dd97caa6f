"""Reference solution for {{title}} (hidden from learners)."""

import torch


def _check_matrix(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"x must be float32 or float64, got {x.dtype}")
    if x.dim() != 2:
        raise ValueError(f"x must be 2-D [N, D], got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError("x must contain only finite values")


def normalize_rows(x):
    _check_matrix(x)
    norms = x.norm(dim=1, keepdim=True)  # (N, 1)
    return x / norms.clamp_min(1e-12)  # (N, D) / (N, 1): a zero row stays zero
