"""When nothing needs clipping each gradient comes back as g.detach(), a view that shares the input's storage.

Overrides: clip_grad_norm
"""


def clip_grad_norm(grads, max_norm, eps=1e-6):
    tensors = check_grads(grads)
    check_settings(max_norm, eps)
    if not tensors:
        return [None] * len(grads), torch.zeros(())
    with torch.no_grad():
        total_norm = _total_norm([t.detach() for t in tensors])
        if not torch.isfinite(total_norm):
            raise ValueError("the total norm is not finite")
        clipping = bool(total_norm > max_norm)
        scale = max_norm / (total_norm + eps) if clipping else None
        clipped = [None if g is None else (g.detach() * scale if clipping else g.detach()) for g in grads]
    return clipped, total_norm
