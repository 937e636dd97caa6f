"""Variant: both pairs stacked into one [2N, D] batch, float64 inside, einsum, cast back."""

import torch

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
FLOAT_DTYPES = (torch.float32, torch.float64)
NAMES = ("p1", "p2", "z1", "z2")


def _check_views(p1, p2, z1, z2):
    tensors = (p1, p2, z1, z2)
    for name, t in zip(NAMES, tensors, strict=True):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
    for name, t in zip(NAMES, tensors, strict=True):
        if t.dtype != p1.dtype:
            raise TypeError(f"{name} has dtype {t.dtype} but p1 has {p1.dtype}; all four must share one")
        if t.device != p1.device:
            raise ValueError(f"{name} is on {t.device} but p1 is on {p1.device}")
        if t.shape != p1.shape:
            raise ValueError(f"{name} has shape {tuple(t.shape)} but p1 has {tuple(p1.shape)} (no broadcasting)")
    if p1.dim() != 2 or p1.shape[0] < 1 or p1.shape[1] < 1:
        raise ValueError(f"p1, p2, z1 and z2 must be [N, D] with N >= 1 and D >= 1, got shape {tuple(p1.shape)}")
    for name, t in zip(NAMES, tensors, strict=True):
        if not torch.isfinite(t).all():
            raise ValueError(f"{name} must contain only finite values")


def simsiam_loss(p1, p2, z1, z2):
    _check_views(p1, p2, z1, z2)
    p = torch.cat([p1, p2]).double()  # (2N, D): the predictions of views 1 and 2
    z = torch.cat([z2, z1]).detach().double()  # (2N, D): the other view's projection, row for row
    dots = torch.einsum("nd,nd->n", p, z)
    norms = torch.linalg.vector_norm(p, dim=1).clamp_min(1e-12) * torch.linalg.vector_norm(z, dim=1).clamp_min(1e-12)
    return (-(dots / norms).mean()).to(p1.dtype)  # the mean over 2N rows is the average of the two means
