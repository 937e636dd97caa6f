"""The dtypes of the channel tensors are not compared with x's, so float32 statistics for float64 inputs slip through.

Overrides: check_channel_tensors
"""


def check_channel_tensors(x, running_mean, running_var, weight, bias):
    for name, tensor in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                         ("bias", bias)):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor")
        if tensor.shape != (x.shape[1],):
            raise ValueError(f"{name} must have shape [C]")
        if not torch.isfinite(tensor).all():
            raise ValueError(f"{name} must be finite")
    if (running_var < 0).any():
        raise ValueError("running_var cannot be negative")
