"""A norm that overflows to inf is not refused: the gradients are multiplied by max_norm / inf = 0 instead.

Overrides: clip_grad_norm
Source: https://github.com/pytorch/pytorch/issues/46849 (error_if_nonfinite: clip_grad_norm_ silently clipping with a non-finite total norm)
"""


def clip_grad_norm(grads, max_norm, eps=1e-6):
    tensors = check_grads(grads)
    check_settings(max_norm, eps)
    if not tensors:
        return [None] * len(grads), torch.zeros(())
    with torch.no_grad():
        total_norm = _total_norm([t.detach() for t in tensors])
        clipping = bool(total_norm > max_norm)
        scale = max_norm / (total_norm + eps) if clipping else None
        return [None if g is None else (g.detach() * scale if clipping else g.detach().clone()) for g in grads], \
            total_norm
