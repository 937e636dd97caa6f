"""Reference solution for the GRPO problem (Shao et al., 2024, DeepSeekMath). Trusted: imported only in the
judge's process."""

import torch

from helpers import check_loss_inputs, check_rewards


def group_advantages(rewards, group_size, eps=1e-4):
    """(r - mean of its group) / (unbiased std of its group + eps), for rewards [B * G] in contiguous groups."""
    check_rewards(rewards, group_size, eps)
    r = rewards.detach()  # an advantage is a constant weight: no gradient flows back into the rewards
    if group_size == 1 or r.numel() == 0:
        # a group of one has nothing to be compared with (and the unbiased std of one value is nan); an empty
        # batch has no group at all
        return torch.zeros_like(r)
    grouped = r.reshape(-1, group_size)  # [B, G]: completions of one prompt side by side
    mean = grouped.mean(dim=1, keepdim=True)
    std = grouped.std(dim=1, keepdim=True)  # unbiased (divides by G - 1), as torch.std does by default
    return ((grouped - mean) / (std + eps)).reshape(-1)


def grpo_loss(logp_new, logp_old, logp_ref, advantages, mask, clip_eps=0.2, beta=0.04):
    """-(1/N) sum_i (1/|o_i|) sum_t mask * (min(rho A, clip(rho) A) - beta * KL_k3), an empty row counting 0."""
    check_loss_inputs(logp_new, logp_old, logp_ref, advantages, mask, clip_eps, beta)
    new, old, ref = _without_padding(mask, logp_new, logp_old.detach(), logp_ref.detach())
    objective = _surrogate(new, old, advantages.detach(), clip_eps)
    objective = objective - beta * _kl_k3(new, ref)
    return -_per_sequence_mean(objective, mask)


def _without_padding(mask, *logps):
    # Padded positions are set to 0 before any exp. Selecting them away only at the end is not enough: a padded
    # exp(100) is inf in float32, and the backward pass multiplies that inf by the 0 gradient of the padding,
    # 0 * inf = nan, which lands in logp_new's gradient.
    return [torch.where(mask, t, torch.zeros_like(t)) for t in logps]


def _surrogate(logp_new, logp_old, advantages, clip_eps):
    # the ratio from the difference of logs: exp(logp_new) / exp(logp_old) is 0 / 0 once both underflow
    ratio = torch.exp(logp_new - logp_old)  # [N, T]: pi_theta / pi_old, token by token
    a = advantages.unsqueeze(1)  # [N, 1]: one advantage for every token of its completion
    unclipped = ratio * a
    clipped = ratio.clamp(1 - clip_eps, 1 + clip_eps) * a
    return torch.minimum(unclipped, clipped)  # the pessimistic bound, as in PPO


def _kl_k3(logp_new, logp_ref):
    log_ratio = logp_ref - logp_new  # log(pi_ref / pi_theta)
    return torch.exp(log_ratio) - log_ratio - 1  # >= 0, unbiased for KL(pi_theta || pi_ref)


def _per_sequence_mean(values, mask):
    # masked positions are selected away (not multiplied), so whatever they hold never reaches the result
    kept = torch.where(mask, values, torch.zeros_like(values))
    lengths = mask.sum(dim=1).clamp(min=1).to(values.dtype)  # an empty completion counts 0, not 0 / 0
    return (kept.sum(dim=1) / lengths).mean()
