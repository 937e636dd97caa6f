"""PyTorch's min(1, max_norm / (norm + eps)) is used, which also shrinks a gradient whose norm is exactly max_norm.

Overrides: clip_grad_norm
Source: pytorch/pytorch torch/nn/utils/clip_grad.py (clip_coef = max_norm / (total_norm + 1e-6), clamped to 1)
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
        scale = torch.clamp(max_norm / (total_norm + eps), max=1.0)
        return [None if g is None else g.detach() * scale for g in grads], total_norm
