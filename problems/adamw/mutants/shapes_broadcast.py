"""Shapes are not compared, so a grad of another shape broadcasts (or fails with a RuntimeError) instead of a ValueError.

Overrides: check_state
"""

from helpers import STATE_NAMES


def check_state(param, grad, exp_avg, exp_avg_sq):
    tensors = (param, grad, exp_avg, exp_avg_sq)
    for name, tensor in zip(STATE_NAMES, tensors, strict=True):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if tensor.dtype not in (torch.float32, torch.float64) or tensor.dtype != param.dtype:
            raise TypeError(f"{name} must be float32 or float64 like param, got {tensor.dtype}")
        if not torch.isfinite(tensor).all():
            raise ValueError(f"{name} must contain only finite values")
    if (exp_avg_sq < 0).any():
        raise ValueError("exp_avg_sq cannot be negative")
