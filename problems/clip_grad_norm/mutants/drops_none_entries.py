"""None entries are filtered out of the result, so the list no longer lines up with the parameters.

Overrides: clip_grad_norm
"""


def clip_grad_norm(grads, max_norm, eps=1e-6):
    tensors = check_grads(grads)
    check_settings(max_norm, eps)
    if not tensors:
        return [], torch.zeros(())
    with torch.no_grad():
        total_norm = _total_norm([t.detach() for t in tensors])
        if not torch.isfinite(total_norm):
            raise ValueError("the total norm is not finite")
        clipping = bool(total_norm > max_norm)
        scale = max_norm / (total_norm + eps) if clipping else 1.0
        return [t.detach() * scale for t in tensors], total_norm
