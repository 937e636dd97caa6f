"""GRPO computed in float64 and cast back: var_mean for the statistics, torch.where to pick the binding side of the
clip, masked_fill for the padding (before any exp, so a padded value cannot overflow into the gradient)."""

import torch

from helpers import check_loss_inputs, check_rewards


def group_advantages(rewards, group_size, eps=1e-4):
    check_rewards(rewards, group_size, eps)
    r = rewards.detach().to(torch.float64).view(-1, group_size) if rewards.numel() else None
    if r is None:
        return torch.zeros_like(rewards.detach())
    if group_size == 1:
        out = torch.zeros_like(r)
    else:
        var, mean = torch.var_mean(r, dim=1, correction=1, keepdim=True)
        out = (r - mean) / (var.sqrt() + eps)
    return out.reshape(-1).to(rewards.dtype)


def grpo_loss(logp_new, logp_old, logp_ref, advantages, mask, clip_eps=0.2, beta=0.04):
    check_loss_inputs(logp_new, logp_old, logp_ref, advantages, mask, clip_eps, beta)
    new = logp_new.to(torch.float64).masked_fill(~mask, 0.0)
    old = logp_old.detach().to(torch.float64).masked_fill(~mask, 0.0)
    ref = logp_ref.detach().to(torch.float64).masked_fill(~mask, 0.0)
    a = advantages.detach().to(torch.float64)[:, None].expand_as(new)
    ratio = (new - old).exp()
    # the clipped term is the smaller one exactly when the ratio is past the clip on the side A favours
    binding = ((a > 0) & (ratio > 1 + clip_eps)) | ((a < 0) & (ratio < 1 - clip_eps))
    surrogate = torch.where(binding, ratio.clamp(1 - clip_eps, 1 + clip_eps) * a, ratio * a)
    d = ref - new
    kl = d.exp() - d - 1
    per_token = (surrogate - beta * kl).masked_fill(~mask, 0.0)
    counts = mask.sum(dim=1).to(torch.float64)
    per_sequence = per_token.sum(dim=1) / torch.where(counts > 0, counts, torch.ones_like(counts))
    return (-per_sequence.mean()).to(logp_new.dtype)
