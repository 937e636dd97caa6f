"""A correct solution that stays in the inputs' dtype and uses softplus(z) = softplus(-z) + z: a soft label's
loss is softplus(-z) + (1 - p) z; the accuracy is a float32 mean for float32 rewards; the ranking loops over the
positions of the ranking."""

import torch
import torch.nn.functional as F

from helpers import check_accuracy_inputs, check_preference_inputs, check_ranking_inputs


def preference_loss(r_chosen, r_rejected, margin=None, label=None):
    check_preference_inputs(r_chosen, r_rejected, margin, label)
    z = r_chosen - r_rejected
    if margin is not None:
        z = z - margin
    losses = F.softplus(-z)
    if label is not None:
        losses = losses + (1 - label) * z
    n = z.shape[0]
    return losses.sum() / n if n > 0 else losses.sum()


def preference_accuracy(r_chosen, r_rejected):
    check_accuracy_inputs(r_chosen, r_rejected)
    c, r = r_chosen.detach(), r_rejected.detach()
    score = (c > r).to(c.dtype) + 0.5 * (c == r).to(c.dtype)
    return score.mean().item()


def ranking_loss(rewards, ranking):
    check_ranking_inputs(rewards, ranking)
    p, k = rewards.shape
    ordered = torch.gather(rewards, 1, ranking)
    total = rewards.new_zeros(p) + 0 * rewards.sum(dim=1)
    for a in range(k - 1):
        total = total + F.softplus(-(ordered[:, a : a + 1] - ordered[:, a + 1 :])).sum(dim=1)
    per_prompt = total / (k * (k - 1) / 2)
    return per_prompt.mean() if p > 0 else per_prompt.sum()
