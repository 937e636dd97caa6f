"""Reference global gradient-norm clipping (Pascanu et al., 2013)."""

import torch

from helpers import check_grads, check_settings


def _total_norm(tensors):
    """The L2 norm of all elements of all tensors, scaled by the largest magnitude first so that squaring
    neither overflows (|g| ~ 1e30 in float32) nor underflows (|g| ~ 1e-30)."""
    nonempty = [t for t in tensors if t.numel() > 0]
    if not nonempty:
        return torch.zeros((), dtype=tensors[0].dtype, device=tensors[0].device)
    largest = torch.stack([t.abs().amax() for t in nonempty]).amax()  # 0-d
    if largest == 0:
        return largest.clone()
    squares = torch.stack([((t / largest) ** 2).sum() for t in nonempty]).sum()  # each term <= 1
    return largest * squares.sqrt()


def clip_grad_norm(grads, max_norm, eps=1e-6):
    tensors = check_grads(grads)
    check_settings(max_norm, eps)
    if not tensors:  # nothing to clip: every parameter is frozen
        return [None] * len(grads), torch.zeros(())
    with torch.no_grad():
        total_norm = _total_norm([t.detach() for t in tensors])
        if not torch.isfinite(total_norm):
            raise ValueError("the total norm overflows the dtype; it is not finite, so clipping is undefined")
        clipping = bool(total_norm > max_norm)  # exactly at the threshold: left alone
        scale = max_norm / (total_norm + eps) if clipping else None
        clipped = [None if g is None else (g.detach() * scale if clipping else g.detach().clone()) for g in grads]
    return clipped, total_norm
