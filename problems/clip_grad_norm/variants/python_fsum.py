"""Variant (correct): Python floats and math.fsum for the norm, one element at a time, scaled by the largest magnitude."""

import math

import torch

from helpers import check_grads, check_settings


def clip_grad_norm(grads, max_norm, eps=1e-6):
    tensors = check_grads(grads)
    check_settings(max_norm, eps)
    if not tensors:
        return [None] * len(grads), torch.zeros(())
    values = [v for t in tensors for v in t.detach().reshape(-1).tolist()]
    largest = max((abs(v) for v in values), default=0.0)
    norm = largest * math.sqrt(math.fsum((v / largest) ** 2 for v in values)) if largest > 0 else 0.0
    total_norm = torch.tensor(norm, dtype=tensors[0].dtype)
    if not torch.isfinite(total_norm):
        raise ValueError("the total norm is not finite")
    factor = max_norm / (float(total_norm) + eps) if float(total_norm) > max_norm else 1.0
    return [None if g is None else (g.detach() * factor).to(g.dtype) for g in grads], total_norm
