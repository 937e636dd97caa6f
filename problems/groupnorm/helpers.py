"""GroupNorm's validation helpers, supplied and read-only:
`from helpers import check_affine, check_eps, check_input, check_num_groups`."""

import math

import torch


def check_input(x):
    """TypeError unless x is a float32/float64 tensor; ValueError unless it is [N, C, *spatial] with C >= 1, every
    spatial size >= 1 (N may be 0: an empty batch) and finite values."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"x must be float32 or float64, got {x.dtype}")
    if x.dim() < 2:
        raise ValueError(f"x must be [N, C, *spatial] (at least 2 dimensions), got shape {tuple(x.shape)}")
    if x.shape[1] < 1 or any(size < 1 for size in x.shape[2:]):
        raise ValueError(f"x must have C >= 1 channels and spatial sizes >= 1, got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError("x must contain only finite values")


def check_num_groups(num_groups, x):
    """TypeError unless num_groups is a Python int (not bool); ValueError unless it is >= 1 and divides C."""
    if isinstance(num_groups, bool) or not isinstance(num_groups, int):
        raise TypeError(f"num_groups must be a Python int, got {type(num_groups).__name__}")
    if num_groups < 1:
        raise ValueError(f"num_groups must be >= 1, got {num_groups}")
    channels = x.shape[1]
    if channels % num_groups != 0:
        raise ValueError(f"num_groups = {num_groups} must divide the number of channels C = {channels}")


def check_affine(name, p, x):
    """weight and bias are None or a [C] tensor with x's dtype and device and finite values."""
    if p is None:
        return
    if not isinstance(p, torch.Tensor):
        raise TypeError(f"{name} must be None or a torch.Tensor, got {type(p).__name__}")
    if p.dtype != x.dtype:
        raise TypeError(f"{name} must have x's dtype {x.dtype}, got {p.dtype}")
    if p.device != x.device:
        raise ValueError(f"{name} must be on x's device {x.device}, got {p.device}")
    if tuple(p.shape) != (x.shape[1],):
        raise ValueError(f"{name} must have shape [C] = [{x.shape[1]}], got {tuple(p.shape)}")
    if not torch.isfinite(p).all():
        raise ValueError(f"{name} must contain only finite values")


def check_eps(eps):
    """TypeError unless eps is a Python int/float (not bool); ValueError unless it is finite and > 0."""
    if isinstance(eps, bool) or not isinstance(eps, int | float):
        raise TypeError(f"eps must be a Python float or int, got {type(eps).__name__}")
    if not math.isfinite(eps) or eps <= 0:
        raise ValueError(f"eps must be finite and > 0, got {eps}")
