"""Variant (correct): per-tensor norms first, then the norm of those norms (PyTorch's arrangement), in float64."""

import torch

from helpers import check_grads, check_settings


def clip_grad_norm(grads, max_norm, eps=1e-6):
    tensors = check_grads(grads)
    check_settings(max_norm, eps)
    if not tensors:
        return [None] * len(grads), torch.zeros(())
    dtype = tensors[0].dtype
    with torch.no_grad():
        wide = [t.detach().double() for t in tensors]
        largest = max((float(t.abs().max()) for t in wide if t.numel()), default=0.0)
        if largest == 0:
            norm = torch.zeros((), dtype=torch.float64)
        else:
            per_tensor = torch.stack([torch.linalg.vector_norm(t / largest) for t in wide])
            norm = largest * torch.linalg.vector_norm(per_tensor)
        total_norm = norm.to(dtype)
        if not torch.isfinite(total_norm):
            raise ValueError("the total norm is not finite")
        if total_norm <= max_norm:
            return [None if g is None else g.detach().clone() for g in grads], total_norm
        factor = max_norm / (total_norm + eps)
        return [None if g is None else g.detach() * factor for g in grads], total_norm
