"""SimCLR's validation helpers: every rule of the statement's contract for z1, z2 and the temperature.

Supplied and read-only: `from helpers import check_temperature, check_views` in your solution, and call both
before computing anything.
"""

import math

import torch


def check_views(z1: torch.Tensor, z2: torch.Tensor) -> None:
    """Raise TypeError / ValueError unless z1 and z2 are matching finite float32/float64 [N, D] tensors."""
    for name, z in (("z1", z1), ("z2", z2)):
        if not isinstance(z, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(z).__name__}")
        if z.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"{name} must be float32 or float64, got {z.dtype}")
        if z.dim() != 2:
            raise ValueError(f"{name} must be 2-D [N, D], got shape {tuple(z.shape)}")
    if z1.dtype != z2.dtype:
        raise TypeError(f"z1 and z2 must share a dtype, got {z1.dtype} and {z2.dtype}")
    if z1.device != z2.device:
        raise ValueError(f"z1 and z2 must be on the same device, got {z1.device} and {z2.device}")
    if z1.shape != z2.shape:
        raise ValueError(f"z1 and z2 must have the same shape, got {tuple(z1.shape)} and {tuple(z2.shape)}")
    if z1.shape[0] < 1 or z1.shape[1] < 1:
        raise ValueError(f"need N >= 1 pairs and D >= 1 features, got shape {tuple(z1.shape)}")
    if not (torch.isfinite(z1).all() and torch.isfinite(z2).all()):
        raise ValueError("z1 and z2 must contain only finite values")


def check_temperature(temperature: float) -> None:
    """Raise TypeError unless temperature is a Python int/float (not bool), ValueError unless finite and > 0."""
    if isinstance(temperature, bool) or not isinstance(temperature, int | float):
        raise TypeError(f"temperature must be a Python int or float, got {type(temperature).__name__}")
    if not math.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"temperature must be finite and > 0, got {temperature}")
