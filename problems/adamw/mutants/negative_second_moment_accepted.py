"""A negative exp_avg_sq is not refused, and its square root turns the step into nan.

Overrides: check_state
"""

from helpers import STATE_NAMES


def check_state(param, grad, exp_avg, exp_avg_sq):
    tensors = (param, grad, exp_avg, exp_avg_sq)
    for name, tensor in zip(STATE_NAMES, tensors, strict=True):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if tensor.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"{name} must be float32 or float64, got {tensor.dtype}")
        if tensor.dtype != param.dtype:
            raise TypeError(f"{name} must have param's dtype {param.dtype}, got {tensor.dtype}")
        if tensor.shape != param.shape:
            raise ValueError(f"{name} must have param's shape {tuple(param.shape)}, got {tuple(tensor.shape)}")
        if not torch.isfinite(tensor).all():
            raise ValueError(f"{name} must contain only finite values")
