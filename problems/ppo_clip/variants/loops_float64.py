"""Step by step in Python loops, in float64 internally, cast back to the inputs' dtype."""

import torch

from helpers import check_ppo_inputs, check_surrogate_inputs, check_value_inputs


def _flat(t):
    return t.reshape(-1)


def _mean_of(terms, keep, anchor):
    total = anchor.double().sum() * 0.0  # 0, on the graph of the input: the result requires grad like it
    count = 0
    for term, counted in zip(terms, keep, strict=True):
        if counted:
            total = total + term
            count += 1
    return total / max(count, 1)


def _keep(mask, n):
    return [True] * n if mask is None else [bool(m) for m in _flat(mask).tolist()]


def _policy_terms(logp_new, logp_old, advantages, clip_eps):
    new, old, adv = _flat(logp_new).double(), _flat(logp_old).detach().double(), _flat(advantages).detach().double()
    terms = []
    for i in range(new.numel()):
        r = torch.exp(new[i] - old[i])
        clipped_r = torch.clamp(r, 1.0 - clip_eps, 1.0 + clip_eps)
        terms.append(-torch.minimum(r * adv[i], clipped_r * adv[i]))
    return terms


def _value_terms(values, old_values, returns, clip_eps):
    v, v_old, ret = _flat(values).double(), _flat(old_values).detach().double(), _flat(returns).detach().double()
    terms = []
    for i in range(v.numel()):
        err = (v[i] - ret[i]) ** 2
        if clip_eps is not None:
            v_clipped = v_old[i] + torch.clamp(v[i] - v_old[i], -clip_eps, clip_eps)
            err = torch.maximum(err, (v_clipped - ret[i]) ** 2)
        terms.append(0.5 * err)
    return terms


def clipped_surrogate(logp_new, logp_old, advantages, clip_eps=0.2, mask=None):
    check_surrogate_inputs(logp_new, logp_old, advantages, clip_eps, mask)
    terms = _policy_terms(logp_new, logp_old, advantages, clip_eps)
    return _mean_of(terms, _keep(mask, len(terms)), logp_new).to(logp_new.dtype)


def value_loss(values, old_values, returns, clip_eps=None, mask=None):
    check_value_inputs(values, old_values, returns, clip_eps, mask)
    terms = _value_terms(values, old_values, returns, clip_eps)
    return _mean_of(terms, _keep(mask, len(terms)), values).to(values.dtype)


def ppo_loss(logits, actions, logp_old, advantages, values, old_values, returns, mask=None, clip_eps=0.2,
             vf_clip_eps=None, vf_coef=0.5, ent_coef=0.01):
    check_ppo_inputs(logits, actions, logp_old, advantages, values, old_values, returns, mask, clip_eps,
                     vf_clip_eps, vf_coef, ent_coef)
    rows = logits.double().reshape(-1, logits.shape[-1])
    chosen = _flat(actions).tolist()
    logp_new, entropies = [], []
    for i in range(rows.shape[0]):
        log_p = rows[i] - torch.logsumexp(rows[i], dim=0)
        logp_new.append(log_p[chosen[i]])
        entropies.append(-(log_p.exp() * log_p).sum())
    logp_new = torch.stack(logp_new) if logp_new else rows.new_zeros(0)
    keep = _keep(mask, len(chosen))
    policy = _mean_of(_policy_terms(logp_new, logp_old, advantages, clip_eps), keep, logits)
    value = _mean_of(_value_terms(values, old_values, returns, vf_clip_eps), keep, values)
    entropy = _mean_of(entropies, keep, logits)
    return (policy + vf_coef * value - ent_coef * entropy).to(logits.dtype)
