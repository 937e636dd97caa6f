"""Mutant: negatives are detached as MoCo's queue would be; only the anchor and positive get gradients."""

import math

import torch

NORM_FLOOR = 1e-12  # rows are divided by max(||z||, NORM_FLOOR): a zero row stays zero instead of 0 / 0


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
    z = torch.cat([z1, z2], dim=0)  # (2N, D): rows 0..N-1 are the first views, N..2N-1 their partners
    z = z / z.norm(dim=1, keepdim=True).clamp_min(NORM_FLOOR)  # (2N, D) / (2N, 1)
    logits = z @ z.T / temperature  # (2N, D) x (D, 2N) -> (2N, 2N) cosine / T
    keep = torch.eye(2 * n, dtype=torch.bool, device=z.device).roll(n, dims=1)  # the partner's column
    logits = torch.where(keep, logits, (z @ z.detach().T / temperature).detach())
    is_self = torch.eye(2 * n, dtype=torch.bool, device=z.device)
    logits = logits.masked_fill(is_self, float("-inf"))  # a view is never its own candidate
    rows = torch.arange(2 * n, device=z.device)
    partner = (rows + n) % (2 * n)  # view i of z1 pairs with view i of z2, and back
    positive = logits[rows, partner]  # (2N,)
    per_anchor = torch.logsumexp(logits, dim=1) - positive  # (2N,) positive stays in the denominator
    return per_anchor.mean()  # symmetric: all 2N anchors, both directions
