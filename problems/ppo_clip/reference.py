"""Reference solution for the PPO problem (Schulman, Wolski, Dhariwal, Radford and Klimov, 2017): the clipped
surrogate, the value loss with optional clipping, and the combined loss with an entropy bonus."""

import torch

from helpers import check_ppo_inputs, check_surrogate_inputs, check_value_inputs


def clipped_surrogate(logp_new, logp_old, advantages, clip_eps=0.2, mask=None):
    """-mean over counted steps of min(r A, clip(r, 1 - eps, 1 + eps) A), r = exp(logp_new - logp_old)."""
    check_surrogate_inputs(logp_new, logp_old, advantages, clip_eps, mask)
    return _masked_mean(_surrogate_terms(logp_new, logp_old, advantages, clip_eps, mask), mask)


def value_loss(values, old_values, returns, clip_eps=None, mask=None):
    """0.5 * mean of (V - R)^2, or of max((V - R)^2, (V_old + clip(V - V_old, -eps, eps) - R)^2) when clipped."""
    check_value_inputs(values, old_values, returns, clip_eps, mask)
    return _masked_mean(_value_terms(values, old_values, returns, clip_eps), mask)


def ppo_loss(logits, actions, logp_old, advantages, values, old_values, returns, mask=None, clip_eps=0.2,
             vf_clip_eps=None, vf_coef=0.5, ent_coef=0.01):
    """clipped_surrogate + vf_coef * value_loss - ent_coef * (mean entropy), logp_new read from the logits."""
    check_ppo_inputs(logits, actions, logp_old, advantages, values, old_values, returns, mask, clip_eps,
                     vf_clip_eps, vf_coef, ent_coef)
    log_probs = torch.log_softmax(logits, dim=-1)  # [..., A], stable at any scale
    logp_new = _log_prob_of(log_probs, actions)  # [...]
    policy = _masked_mean(_surrogate_terms(logp_new, logp_old, advantages, clip_eps, mask), mask)
    value = _masked_mean(_value_terms(values, old_values, returns, vf_clip_eps), mask)
    entropy = _masked_mean(_entropy(log_probs), mask)
    return policy + vf_coef * value - ent_coef * entropy  # the entropy is a bonus: subtracting it rewards it


def _ratio(logp_new, logp_old, mask):
    # from the difference of log-probabilities: exp(-150) / exp(-150.5) is 0 / 0 in float32, exp(0.5) is not
    log_ratio = logp_new - logp_old.detach()
    if mask is not None:
        # A masked step may hold anything, e.g. a log-ratio of 1000 whose exp is inf: dropped only after the exp, its
        # zero gradient would meet that inf in the backward pass (0 * inf = nan). It never reaches the exp.
        log_ratio = torch.where(mask, log_ratio, torch.zeros_like(log_ratio))
    return torch.exp(log_ratio)


def _surrogate_terms(logp_new, logp_old, advantages, clip_eps, mask):
    ratio = _ratio(logp_new, logp_old, mask)
    advantages = advantages.detach()  # a fixed weight per step: no gradient reaches whatever produced it
    unclipped = ratio * advantages
    clipped = torch.clamp(ratio, 1.0 - clip_eps, 1.0 + clip_eps) * advantages
    return -torch.minimum(unclipped, clipped)  # the pessimistic bound, negated into a loss to minimise


def _value_terms(values, old_values, returns, clip_eps):
    returns = returns.detach()
    squared = (values - returns) ** 2
    if clip_eps is None:
        return 0.5 * squared
    old_values = old_values.detach()
    clipped_values = old_values + torch.clamp(values - old_values, -clip_eps, clip_eps)
    return 0.5 * torch.maximum(squared, (clipped_values - returns) ** 2)  # the larger error: pessimistic again


def _masked_mean(terms, mask):
    """Mean over the counted steps (all of them without a mask), every step weighted alike; 0 when none counts."""
    if mask is not None:
        terms = torch.where(mask, terms, torch.zeros_like(terms))
        count = int(mask.sum())
    else:
        count = terms.numel()
    return terms.sum() / max(count, 1)


def _log_prob_of(log_probs, actions):
    return log_probs.gather(-1, actions.unsqueeze(-1)).squeeze(-1)


def _entropy(log_probs):
    # p log p with p = exp(log p): an action of probability 0 contributes 0 * (a large negative number) = 0
    return -(log_probs.exp() * log_probs).sum(dim=-1)
