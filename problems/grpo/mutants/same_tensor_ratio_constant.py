"""This is what you get when the call with logp_old being logp_new itself (one update per batch) is short-cut to a ratio of exactly 1: the loss's value is right, but that ratio is a constant, so the surrogate gives logp_new no gradient at all.

Overrides: grpo_loss
"""

import torch


def grpo_loss(logp_new, logp_old, logp_ref, advantages, mask, clip_eps=0.2, beta=0.04):
    check_loss_inputs(logp_new, logp_old, logp_ref, advantages, mask, clip_eps, beta)
    on_policy = logp_old is logp_new  # the same log-probabilities: pi_theta / pi_old is 1, no need for exp
    new, old, ref = _without_padding(mask, logp_new, logp_old.detach(), logp_ref.detach())
    a = advantages.detach().unsqueeze(1)
    ratio = torch.ones_like(new) if on_policy else torch.exp(new - old)
    objective = torch.minimum(ratio * a, ratio.clamp(1 - clip_eps, 1 + clip_eps) * a)
    objective = objective - beta * _kl_k3(new, ref)
    return -_per_sequence_mean(objective, mask)
