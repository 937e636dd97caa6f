"""Variant: computes in float64 with einsum and casts back; the average on detached float64 copies."""

import math

import torch

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_tensor(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")


def _check_pair(first_name, first, second_name, second):
    """Both tensors of one float dtype and device, the same shape, finite entries."""
    _check_tensor(first_name, first)
    _check_tensor(second_name, second)
    if first.dtype != second.dtype:
        raise TypeError(f"{first_name} and {second_name} must share a dtype, got {first.dtype} and {second.dtype}")
    if first.device != second.device:
        raise ValueError(f"{first_name} and {second_name} must be on one device, got {first.device} and "
                         f"{second.device}")
    if first.shape != second.shape:
        raise ValueError(f"{first_name} and {second_name} must have the same shape (no broadcasting), got "
                         f"{tuple(first.shape)} and {tuple(second.shape)}")
    if not (torch.isfinite(first).all() and torch.isfinite(second).all()):
        raise ValueError(f"{first_name} and {second_name} must contain only finite values")


def _check_batches(online_prediction, target_projection):
    _check_pair("online_prediction", online_prediction, "target_projection", target_projection)
    if online_prediction.dim() != 2 or online_prediction.shape[0] < 1 or online_prediction.shape[1] < 1:
        raise ValueError(f"online_prediction and target_projection must be [N, D] with N >= 1 and D >= 1, got "
                         f"shape {tuple(online_prediction.shape)}")


def _check_tau(tau):
    if isinstance(tau, bool) or not isinstance(tau, int | float):
        raise TypeError(f"tau must be a Python int or float, got {type(tau).__name__}")
    if not math.isfinite(tau) or not 0 <= tau <= 1:
        raise ValueError(f"tau must be a finite number in [0, 1], got {tau}")


def byol_loss(online_prediction, target_projection):
    _check_batches(online_prediction, target_projection)
    p = online_prediction.double()
    z = target_projection.detach().double()
    dots = torch.einsum("nd,nd->n", p, z)
    norms = torch.linalg.vector_norm(p, dim=1).clamp_min(1e-12) * torch.linalg.vector_norm(z, dim=1).clamp_min(1e-12)
    return (2 - 2 * dots / norms).mean().to(online_prediction.dtype)


def target_update(online_params, target_params, tau):
    _check_tau(tau)
    _check_pair("online_params", online_params, "target_params", target_params)
    online = online_params.detach().double()
    target = target_params.detach().double()
    return (tau * target + (1 - tau) * online).to(online_params.dtype)
