"""Gradients of different dtypes (or float16) are accepted instead of refused.

Overrides: check_grads
"""


def check_grads(grads):
    if not isinstance(grads, list | tuple):
        raise TypeError(f"grads must be a list or tuple, got {type(grads).__name__}")
    tensors = []
    for index, grad in enumerate(grads):
        if grad is None:
            continue
        if not isinstance(grad, torch.Tensor) or not grad.is_floating_point():
            raise TypeError(f"grads[{index}] must be a floating-point tensor or None")
        if not torch.isfinite(grad).all():
            raise ValueError(f"grads[{index}] contains nan or inf")
        tensors.append(grad)
    return tensors
