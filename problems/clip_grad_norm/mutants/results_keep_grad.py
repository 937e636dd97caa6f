"""The clipping runs inside the autograd graph, so results require grad when the gradients do.

Overrides: clip_grad_norm
"""


def clip_grad_norm(grads, max_norm, eps=1e-6):
    tensors = check_grads(grads)
    check_settings(max_norm, eps)
    if not tensors:
        return [None] * len(grads), torch.zeros(())
    total_norm = _total_norm(tensors)
    if not torch.isfinite(total_norm):
        raise ValueError("the total norm is not finite")
    clipping = bool(total_norm > max_norm)
    scale = max_norm / (total_norm + eps) if clipping else None
    return [None if g is None else (g * scale if clipping else g.clone()) for g in grads], total_norm
