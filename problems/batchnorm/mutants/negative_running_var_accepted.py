"""A negative running_var is accepted, and evaluation takes the square root of a negative number.

Overrides: check_channel_tensors
"""


def check_channel_tensors(x, running_mean, running_var, weight, bias):
    for name, tensor in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                         ("bias", bias)):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor")
        if tensor.dtype != x.dtype:
            raise TypeError(f"{name} must have x's dtype")
        if tensor.shape != (x.shape[1],):
            raise ValueError(f"{name} must have shape [C]")
