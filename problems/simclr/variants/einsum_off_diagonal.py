"""Variant: einsum similarities, the diagonal removed by gathering the 2N - 1 off-diagonal columns."""

import math

import torch

def _check_views(z1, z2):
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


def _check_temperature(temperature):
    if isinstance(temperature, bool) or not isinstance(temperature, int | float):
        raise TypeError(f"temperature must be a Python int or float, got {type(temperature).__name__}")
    if not math.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"temperature must be finite and > 0, got {temperature}")


def nt_xent_loss(z1, z2, temperature):
    _check_views(z1, z2)
    _check_temperature(temperature)
    n = z1.shape[0]
    z = torch.cat([z1, z2])
    z = z / z.norm(dim=-1, keepdim=True).clamp(min=1e-12)
    logits = torch.einsum("id,jd->ij", z, z) / temperature  # (2N, 2N)
    columns = torch.arange(2 * n)
    off_diagonal = columns[None, :].expand(2 * n, 2 * n)[columns[:, None] != columns[None, :]].view(2 * n, 2 * n - 1)
    candidates = torch.gather(logits, 1, off_diagonal)  # (2N, 2N - 1)
    positive = torch.einsum("id,id->i", z, z.roll(n, dims=0)) / temperature  # partner = row rolled by N
    return (torch.logsumexp(candidates, dim=1) - positive).mean()
