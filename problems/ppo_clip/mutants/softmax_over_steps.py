"""This is what you get when the log-softmax runs over the wrong axis (the steps, dim 0) instead of the actions (the last axis): each step's probabilities no longer sum to 1.

Overrides: ppo_loss
"""

import torch


def ppo_loss(logits, actions, logp_old, advantages, values, old_values, returns, mask=None, clip_eps=0.2,
             vf_clip_eps=None, vf_coef=0.5, ent_coef=0.01):
    check_ppo_inputs(logits, actions, logp_old, advantages, values, old_values, returns, mask, clip_eps,
                     vf_clip_eps, vf_coef, ent_coef)
    log_probs = torch.log_softmax(logits, dim=0)
    logp_new = _log_prob_of(log_probs, actions)
    policy = _masked_mean(_surrogate_terms(logp_new, logp_old, advantages, clip_eps), mask)
    value = _masked_mean(_value_terms(values, old_values, returns, vf_clip_eps), mask)
    entropy = _masked_mean(_entropy(log_probs), mask)
    return policy + vf_coef * value - ent_coef * entropy
