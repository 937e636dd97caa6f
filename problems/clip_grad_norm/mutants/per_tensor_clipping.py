"""Each gradient is clipped by its own norm, so small tensors are never scaled and the direction changes.

Overrides: clip_grad_norm
Source: https://github.com/tensorflow/tensorflow/issues/36001 (Keras clipnorm clips each weight's gradient on its
own); https://github.com/carpedm20/MemN2N-tensorflow/issues/19
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
        clipped = []
        for g in grads:
            if g is None:
                clipped.append(None)
                continue
            norm = _total_norm([g.detach()])
            clipped.append(g.detach() * (max_norm / (norm + eps)) if norm > max_norm else g.detach().clone())
    return clipped, total_norm
