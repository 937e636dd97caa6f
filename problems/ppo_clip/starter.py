"""PPO's clipped surrogate objective (Schulman, Wolski, Dhariwal, Radford and Klimov, 2017).

Implement the three functions below. The validation helpers are supplied in helpers.py (shown read-only under
the editor): each function already calls them; keep those calls.
"""

import torch

from helpers import check_ppo_inputs, check_surrogate_inputs, check_value_inputs


def clipped_surrogate(logp_new, logp_old, advantages, clip_eps=0.2, mask=None):
    """The clipped surrogate as a loss to minimise, a 0-d tensor of logp_new's dtype.

    logp_new, logp_old, advantages: float tensors of one shape [...] (one entry per step or token).
    Per step: -min(r * A, clip(r, 1 - clip_eps, 1 + clip_eps) * A) with r = exp(logp_new - logp_old).
    The result is the mean over the steps where mask is True (all steps without a mask); 0 when none counts.
    Only logp_new receives a gradient: logp_old and advantages are constants.
    """
    check_surrogate_inputs(logp_new, logp_old, advantages, clip_eps, mask)
    raise NotImplementedError("clipped_surrogate: ratio from log-probabilities, pessimistic min, minus the mean")


def value_loss(values, old_values, returns, clip_eps=None, mask=None):
    """0.5 * mean (values - returns)^2 over the counted steps; with clip_eps, each step's error is the larger of
    (V - R)^2 and (V_old + clip(V - V_old, -clip_eps, clip_eps) - R)^2. Only values receives a gradient."""
    check_value_inputs(values, old_values, returns, clip_eps, mask)
    raise NotImplementedError("value_loss: half the squared error, the larger of the two when clipped")


def ppo_loss(logits, actions, logp_old, advantages, values, old_values, returns, mask=None, clip_eps=0.2,
             vf_clip_eps=None, vf_coef=0.5, ent_coef=0.01):
    """logits [..., A], actions int64 [...], the rest [...]. logp_new = log_softmax(logits)[actions]; returns
    clipped_surrogate + vf_coef * value_loss (clipped with vf_clip_eps) - ent_coef * mean entropy of the policy,
    every term averaged over the same counted steps."""
    check_ppo_inputs(logits, actions, logp_old, advantages, values, old_values, returns, mask, clip_eps,
                     vf_clip_eps, vf_coef, ent_coef)
    raise NotImplementedError("ppo_loss: log-probabilities of the actions, the three terms, one total")
