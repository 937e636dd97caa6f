"""Reference SimSiam loss (Chen and He, 2021). Hidden from learners; the checks compare submissions with it."""

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


def _unit_rows(x):
    """Each row divided by max(its L2 norm, NORM_FLOOR)."""
    return x / x.norm(dim=1, keepdim=True).clamp_min(NORM_FLOOR)  # (N, D) / (N, 1)


def _negative_cosine(p, z):
    """D(p, stopgrad(z)): minus the mean over the rows of the cosine between p_i and z_i, z a constant."""
    return -(_unit_rows(p) * _unit_rows(z.detach())).sum(dim=1).mean()


def simsiam_loss(p1, p2, z1, z2):
    _check_views(p1, p2, z1, z2)
    # each view's prediction is compared with the OTHER view's projection, which is a constant here
    return _negative_cosine(p1, z2) / 2 + _negative_cosine(p2, z1) / 2
