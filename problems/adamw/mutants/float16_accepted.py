"""Any floating dtype is accepted and dtypes are not compared, so float16 state or a float32 grad for a float64 param slips through.

Overrides: check_state
"""

from helpers import STATE_NAMES


def check_state(param, grad, exp_avg, exp_avg_sq):
    tensors = (param, grad, exp_avg, exp_avg_sq)
    for name, tensor in zip(STATE_NAMES, tensors, strict=True):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if not tensor.is_floating_point():
            raise TypeError(f"{name} must be a floating-point tensor, got {tensor.dtype}")
        if tensor.shape != param.shape:
            raise ValueError(f"{name} must have param's shape {tuple(param.shape)}, got {tuple(tensor.shape)}")
        if not torch.isfinite(tensor).all():
            raise ValueError(f"{name} must contain only finite values")
    if (exp_avg_sq < 0).any():
        raise ValueError("exp_avg_sq cannot be negative")
