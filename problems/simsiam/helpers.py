"""SimSiam: the validation helpers, supplied and read-only.

`from helpers import check_views` in your solution (the starter does)."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


NAMES = ("p1", "p2", "z1", "z2")


def check_views(p1, p2, z1, z2):
    """Raise TypeError / ValueError unless all four are matching finite float32/float64 [N, D] tensors."""
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
