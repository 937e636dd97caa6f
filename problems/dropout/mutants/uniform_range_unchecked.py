"""The draws are not validated, so a uniform of 1.0 or a negative value is accepted.

Overrides: check_inputs
"""


def check_inputs(x, uniform):
    for name, tensor in (("x", x), ("uniform", uniform)):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if tensor.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"{name} must be float32 or float64, got {tensor.dtype}")
    if uniform.dtype != x.dtype:
        raise TypeError("uniform must have x's dtype")
    if uniform.shape != x.shape:
        raise ValueError("uniform must have x's shape")
