"""The sign-split form of the clip, min(r A, (1 + eps) A if A >= 0 else (1 - eps) A), value clipping by clamping
around the old value, and torch.distributions.Categorical for the log-probabilities and the entropy."""

import torch

from helpers import check_ppo_inputs, check_surrogate_inputs, check_value_inputs


def _reduce(terms, mask):
    if mask is None:
        return terms.sum() / max(terms.numel(), 1)
    return terms[mask].sum() / max(int(mask.sum()), 1)


def _policy(logp_new, logp_old, advantages, clip_eps, mask):
    log_ratio = logp_new - logp_old.detach()
    if mask is not None:  # a padded step's log-ratio may overflow exp; indexing it away after the exp leaves nan
        log_ratio = torch.where(mask, log_ratio, torch.zeros_like(log_ratio))
    ratio = log_ratio.exp()
    adv = advantages.detach()
    bound = torch.where(adv >= 0, (1 + clip_eps) * adv, (1 - clip_eps) * adv)
    return -torch.minimum(ratio * adv, bound)


def _value(values, old_values, returns, clip_eps):
    ret = returns.detach()
    err = (values - ret).square()
    if clip_eps is not None:
        old = old_values.detach()
        clipped = torch.maximum(torch.minimum(values, old + clip_eps), old - clip_eps)
        err = torch.maximum(err, (clipped - ret).square())
    return err / 2


def clipped_surrogate(logp_new, logp_old, advantages, clip_eps=0.2, mask=None):
    check_surrogate_inputs(logp_new, logp_old, advantages, clip_eps, mask)
    return _reduce(_policy(logp_new, logp_old, advantages, clip_eps, mask), mask)


def value_loss(values, old_values, returns, clip_eps=None, mask=None):
    check_value_inputs(values, old_values, returns, clip_eps, mask)
    return _reduce(_value(values, old_values, returns, clip_eps), mask)


def ppo_loss(logits, actions, logp_old, advantages, values, old_values, returns, mask=None, clip_eps=0.2,
             vf_clip_eps=None, vf_coef=0.5, ent_coef=0.01):
    check_ppo_inputs(logits, actions, logp_old, advantages, values, old_values, returns, mask, clip_eps,
                     vf_clip_eps, vf_coef, ent_coef)
    dist = torch.distributions.Categorical(logits=logits, validate_args=False)
    logp_new = dist.log_prob(actions)
    loss = _reduce(_policy(logp_new, logp_old, advantages, clip_eps, mask), mask)
    loss = loss + vf_coef * _reduce(_value(values, old_values, returns, vf_clip_eps), mask)
    return loss - ent_coef * _reduce(dist.entropy(), mask)
