"""BYOL: the validation helpers, supplied and read-only.

`from helpers import check_batches, check_pair, check_tau` in your solution (the starter does)."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_tensor(name, t):
    """Raise TypeError unless t is a float32 or float64 tensor."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")


def check_pair(first_name, first, second_name, second):
    """Raise TypeError / ValueError unless both tensors share a float dtype, a device and a shape, all finite."""
    check_tensor(first_name, first)
    check_tensor(second_name, second)
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


def check_batches(online_prediction, target_projection):
    """Raise TypeError / ValueError unless both are matching finite float32/float64 [N, D] tensors, N, D >= 1."""
    check_pair("online_prediction", online_prediction, "target_projection", target_projection)
    if online_prediction.dim() != 2 or online_prediction.shape[0] < 1 or online_prediction.shape[1] < 1:
        raise ValueError(f"online_prediction and target_projection must be [N, D] with N >= 1 and D >= 1, got "
                         f"shape {tuple(online_prediction.shape)}")


def check_tau(tau):
    """Raise TypeError unless tau is a Python int or float (not bool), ValueError unless it is in [0, 1]."""
    if isinstance(tau, bool) or not isinstance(tau, int | float):
        raise TypeError(f"tau must be a Python int or float, got {type(tau).__name__}")
    if not math.isfinite(tau) or not 0 <= tau <= 1:
        raise ValueError(f"tau must be a finite number in [0, 1], got {tau}")
