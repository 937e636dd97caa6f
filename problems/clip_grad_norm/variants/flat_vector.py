"""Variant (correct): one flat vector for the norm (torch.cat), rescaled by its largest magnitude."""

import torch

from helpers import check_grads, check_settings


def clip_grad_norm(grads, max_norm, eps=1e-6):
    tensors = check_grads(grads)
    check_settings(max_norm, eps)
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
