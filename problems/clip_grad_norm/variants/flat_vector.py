"""Variant (correct): one flat vector for the norm (torch.cat), rescaled by its largest magnitude."""

import math

import torch


def _check_grads(grads):
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
    tensors = _check_grads(grads)
    _check_settings(max_norm, eps)
    if not tensors:
        return [None] * len(grads), torch.zeros(())
    with torch.no_grad():
        flat = torch.cat([t.detach().reshape(-1) for t in tensors])
        largest = flat.abs().max() if flat.numel() else flat.new_zeros(())
        total_norm = largest * torch.linalg.vector_norm(flat / largest) if largest > 0 else largest.clone()
        if not torch.isfinite(total_norm):
            raise ValueError("the total norm is not finite")
        factor = max_norm / (total_norm + eps) if total_norm > max_norm else torch.ones((), dtype=flat.dtype)
        return [None if g is None else g.detach() * factor for g in grads], total_norm
