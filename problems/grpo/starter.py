"""GRPO (Shao et al., 2024, DeepSeekMath): group-relative advantages and the clipped loss with a KL penalty.

Implement group_advantages and grpo_loss below. The validation helpers are supplied in helpers.py (shown read-only
under the editor): each function already calls them; keep those calls.
"""

import torch

from helpers import check_loss_inputs, check_rewards


def group_advantages(rewards, group_size, eps=1e-4):
    """Advantages [B * G] for rewards [B * G], where entries b*G .. b*G + G - 1 are prompt b's G answers.

    Each reward minus its group's mean, divided by (its group's unbiased std + eps). A group whose rewards are all
    equal (a group of one included) gets 0. The result is a new tensor that does not require grad.
    """
    check_rewards(rewards, group_size, eps)
    raise NotImplementedError("group_advantages: reshape to [B, G], normalise each row with its own mean and std")


def grpo_loss(logp_new, logp_old, logp_ref, advantages, mask, clip_eps=0.2, beta=0.04):
    """The GRPO loss, a 0-d tensor, for per-token log-probabilities [N, T] and advantages [N].

    Per token where mask is True: rho = exp(logp_new - logp_old), surrogate min(rho A, clip(rho, 1 - clip_eps,
    1 + clip_eps) A), KL = exp(logp_ref - logp_new) - (logp_ref - logp_new) - 1. The loss is minus the mean over
    the N completions of the mean over each one's own tokens of (surrogate - beta * KL); a completion with no
    token counts 0. Only logp_new receives a gradient.
    """
    check_loss_inputs(logp_new, logp_old, logp_ref, advantages, mask, clip_eps, beta)
    raise NotImplementedError("grpo_loss: per-token ratio, clipped surrogate and k3 penalty, then the two means")
