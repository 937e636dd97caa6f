"""GRPO as TRL writes it: the mask multiplied in as floats, the minimum of the negated terms as a maximum, the k3
estimate through expm1, and the std from the sum of squared deviations written out. The padding is zeroed in the
inputs before any exp."""

import torch

from helpers import check_loss_inputs, check_rewards


def group_advantages(rewards, group_size, eps=1e-4):
    check_rewards(rewards, group_size, eps)
    r = rewards.detach().reshape(-1, group_size)
    centred = r - r.sum(dim=1, keepdim=True) / group_size
    if group_size > 1:
        std = (centred.pow(2).sum(dim=1, keepdim=True) / (group_size - 1)).sqrt()
    else:
        std = torch.zeros_like(centred)
    return (centred / (std + eps)).flatten().clone()


def grpo_loss(logp_new, logp_old, logp_ref, advantages, mask, clip_eps=0.2, beta=0.04):
    check_loss_inputs(logp_new, logp_old, logp_ref, advantages, mask, clip_eps, beta)
    padding = ~mask
    logp_new, logp_old, logp_ref = (t.masked_fill(padding, 0.0)
                                    for t in (logp_new, logp_old.detach(), logp_ref.detach()))
    coef_1 = torch.exp(logp_new - logp_old)
    coef_2 = torch.clamp(coef_1, 1 - clip_eps, 1 + clip_eps)
    adv = advantages.detach().unsqueeze(1)
    per_token_loss = torch.max(-coef_1 * adv, -coef_2 * adv)  # -min(a, b) = max(-a, -b)
    delta = logp_ref - logp_new
    per_token_loss = per_token_loss + beta * (torch.expm1(delta) - delta)
    weights = mask.to(logp_new.dtype)
    return ((per_token_loss * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)).mean()
