"""OpenAI Baselines' arrangement: the loss as the maximum of the two negated terms, masked sums divided by a
count clamped to 1, and the entropy as logsumexp(z) - sum softmax(z) z."""

import torch

from helpers import check_ppo_inputs, check_surrogate_inputs, check_value_inputs


def _masked(terms, mask):
    if mask is None:
        mask = torch.ones_like(terms, dtype=torch.bool)
    weights = mask.to(terms.dtype)
    # a masked step's term may be inf (whatever a padded step holds): zeroed, not weighted by 0, as inf * 0 is nan
    return terms.masked_fill(~mask, 0.0).sum() / weights.sum().clamp_min(1.0)


def _pg(logp_new, logp_old, advantages, clip_eps, mask):
    log_ratio = logp_new - logp_old.detach()
    if mask is not None:  # never exponentiate a padded step's log-ratio: its exp may be inf, and so its gradient nan
        log_ratio = log_ratio.masked_fill(~mask, 0.0)
    ratio = torch.exp(log_ratio)
    neg_adv = -advantages.detach()
    return torch.max(neg_adv * ratio, neg_adv * torch.clamp(ratio, 1.0 - clip_eps, 1.0 + clip_eps))


def _vf(values, old_values, returns, clip_eps):
    ret = returns.detach()
    loss1 = (values - ret) ** 2
    if clip_eps is None:
        return 0.5 * loss1
    old = old_values.detach()
    loss2 = (old + torch.clamp(values - old, -clip_eps, clip_eps) - ret) ** 2
    return 0.5 * torch.max(loss1, loss2)


def clipped_surrogate(logp_new, logp_old, advantages, clip_eps=0.2, mask=None):
    check_surrogate_inputs(logp_new, logp_old, advantages, clip_eps, mask)
    return _masked(_pg(logp_new, logp_old, advantages, clip_eps, mask), mask)


def value_loss(values, old_values, returns, clip_eps=None, mask=None):
    check_value_inputs(values, old_values, returns, clip_eps, mask)
    return _masked(_vf(values, old_values, returns, clip_eps), mask)


def ppo_loss(logits, actions, logp_old, advantages, values, old_values, returns, mask=None, clip_eps=0.2,
             vf_clip_eps=None, vf_coef=0.5, ent_coef=0.01):
    check_ppo_inputs(logits, actions, logp_old, advantages, values, old_values, returns, mask, clip_eps,
                     vf_clip_eps, vf_coef, ent_coef)
    lse = torch.logsumexp(logits, dim=-1)
    logp_new = logits.gather(-1, actions.unsqueeze(-1)).squeeze(-1) - lse
    entropy = lse - (torch.softmax(logits, dim=-1) * logits).sum(dim=-1)
    pg = _masked(_pg(logp_new, logp_old, advantages, clip_eps, mask), mask)
    vf = _masked(_vf(values, old_values, returns, vf_clip_eps), mask)
    return pg + vf_coef * vf - ent_coef * _masked(entropy, mask)
