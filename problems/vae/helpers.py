"""Variational autoencoder: the validation helpers, supplied and read-only.

`from helpers import check_data, check_latent, check_tensors` in your solution."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_tensors(names, tensors):
    """TypeError unless every tensor is float32/float64 and all share one dtype; ValueError unless finite."""
    for name, t in zip(names, tensors, strict=True):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
    first = tensors[0]
    for name, t in zip(names[1:], tensors[1:], strict=True):
        if t.dtype != first.dtype:
            raise TypeError(f"{name} must have {names[0]}'s dtype {first.dtype}, got {t.dtype}")
        if t.device != first.device:
            raise ValueError(f"{name} must be on {names[0]}'s device {first.device}, got {t.device}")
    for name, t in zip(names, tensors, strict=True):
        if not torch.isfinite(t).all():
            raise ValueError(f"{name} must contain only finite values")


def check_latent(mu, logvar):
    """ValueError unless mu and logvar are one [N, D] shape with N, D >= 1."""
    if mu.dim() != 2:
        raise ValueError(f"mu must be 2-D [N, D], got shape {tuple(mu.shape)}")
    if logvar.shape != mu.shape:
        raise ValueError(f"logvar must have mu's shape {tuple(mu.shape)}, got {tuple(logvar.shape)}")
    if mu.shape[0] < 1 or mu.shape[1] < 1:
        raise ValueError(f"need N >= 1 examples and D >= 1 latent dimensions, got shape {tuple(mu.shape)}")


def check_data(x, recon_logits, mu):
    """ValueError unless x and recon_logits are one [N, ...] shape (N = mu's N, at least one pixel) and x is in
    [0, 1]."""
    if x.dim() < 2:
        raise ValueError(f"x must be [N, ...] with at least one pixel dimension, got shape {tuple(x.shape)}")
    if recon_logits.shape != x.shape:
        raise ValueError(f"recon_logits must have x's shape {tuple(x.shape)}, got {tuple(recon_logits.shape)}")
    if x.shape[0] != mu.shape[0]:
        raise ValueError(f"x has {x.shape[0]} examples but mu has {mu.shape[0]}")
    if x[0].numel() < 1:
        raise ValueError(f"each example needs at least one pixel, got shape {tuple(x.shape)}")
    if ((x < 0) | (x > 1)).any():
        raise ValueError("x holds Bernoulli means: every value must lie in [0, 1]")
