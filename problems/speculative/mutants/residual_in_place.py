"""This is what you get when the excess is computed in place in p (p.sub_(q).clamp_(min=0)), as a memory-saving
sampler might: the residual is right, but the caller's p now holds it.

Overrides: residual_distribution
Source: vllm-project/vllm-ascend PR #2881 (an in-place residual in rejection sampling overwrote the target probabilities)
"""


def residual_distribution(p, q):
    check_distributions(p, q)
    p = p.detach()
    total = (p - q.detach()).clamp_min(0).sum(dim=-1, keepdim=True)
    if bool((total > 0).all()):
        excess = p.sub_(q.detach()).clamp_(min=0)
        return excess / excess.sum(dim=-1, keepdim=True)
    return _residual(p, q.detach())
