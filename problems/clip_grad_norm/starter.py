"""Global gradient-norm clipping. Implement clip_grad_norm below; the helpers validate the inputs for you."""

import math

import torch


def _check_grads(grads):
    """The tensors among grads (None skipped). TypeError for a non-sequence, an entry that is neither a tensor
    nor None, a dtype other than float32/float64 or mixed dtypes; ValueError for mixed devices or nan/inf."""
    if not isinstance(grads, list | tuple):
        raise TypeError(f"grads must be a list or tuple of tensors (or None), got {type(grads).__name__}")
    tensors = []
    for index, grad in enumerate(grads):
        if grad is None:
            continue
        if not isinstance(grad, torch.Tensor):
            raise TypeError(f"grads[{index}] must be a torch.Tensor or None, got {type(grad).__name__}")
        if grad.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"grads[{index}] must be float32 or float64, got {grad.dtype}")
        if tensors and grad.dtype != tensors[0].dtype:
            raise TypeError(f"every gradient must share one dtype, got {tensors[0].dtype} and {grad.dtype}")
        if tensors and grad.device != tensors[0].device:
            raise ValueError(f"every gradient must be on one device, got {tensors[0].device} and {grad.device}")
        if not torch.isfinite(grad).all():
            raise ValueError(f"grads[{index}] contains nan or inf, so the total norm is not finite")
        tensors.append(grad)
    return tensors


def _check_settings(max_norm, eps):
    """TypeError unless both are Python ints/floats (not bool); ValueError unless finite, max_norm > 0, eps >= 0."""
    for name, value in (("max_norm", max_norm), ("eps", eps)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value}")
    if max_norm <= 0:
        raise ValueError(f"max_norm must be > 0, got {max_norm}")
    if eps < 0:
        raise ValueError(f"eps must be >= 0, got {eps}")


def clip_grad_norm(grads, max_norm, eps=1e-6):
    """Scale a list of gradients so that their global L2 norm is at most max_norm.

    grads: list or tuple of tensors (one dtype) or None. Returns (clipped, total_norm): a new list with None
    where grads has None, and total_norm, the norm before clipping, a 0-d tensor of the gradients' dtype.
    """
    tensors = _check_grads(grads)  # the non-None entries, validated
    _check_settings(max_norm, eps)
    # 1. no tensors at all: every entry None, and a float32 zero norm
    # 2. the global norm over every element of every tensor, without overflow or underflow: divide by the
    #    largest magnitude before squaring; a non-finite norm raises ValueError
    # 3. only if the norm exceeds max_norm, multiply every tensor by max_norm / (norm + eps)
    # 4. return new tensors (copies when nothing is clipped) that do not require grad
    raise NotImplementedError(f"clip_grad_norm: follow steps 1-4 above ({len(tensors)} tensors to clip)")
