"""A correct solution computed in float64 and cast back: softplus(-z) + (1 - p) z for soft labels, and the ranking
as positions (the inverse permutation) with a mask of the pairs (i, j) where i is ranked above j."""

import torch
import torch.nn.functional as F

from helpers import check_accuracy_inputs, check_preference_inputs, check_ranking_inputs


def preference_loss(r_chosen, r_rejected, margin=None, label=None):
    check_preference_inputs(r_chosen, r_rejected, margin, label)
    z = r_chosen.double() - r_rejected.double()
    if margin is not None:
        z = z - margin.double()
    losses = -F.logsigmoid(z)  # the hard loss
    if label is not None:
        # p softplus(-z) + (1 - p) softplus(z) = softplus(-z) + (1 - p) z, since softplus(z) = softplus(-z) + z
        losses = losses + (1 - label.double()) * z
    return (losses.sum() / max(z.shape[0], 1)).to(r_chosen.dtype)


def preference_accuracy(r_chosen, r_rejected):
    check_accuracy_inputs(r_chosen, r_rejected)
    with torch.no_grad():
        wins = (r_chosen > r_rejected).sum().item()
        ties = (r_chosen == r_rejected).sum().item()
    return (wins + ties / 2) / r_chosen.shape[0]


def ranking_loss(rewards, ranking):
    check_ranking_inputs(rewards, ranking)
    p, k = rewards.shape
    position = ranking.argsort(dim=1)  # position[p, i]: where response i stands, 0 = best
    r = rewards.double()
    z = r[:, :, None] - r[:, None, :]  # [P, K, K]: r_i - r_j
    above = position[:, :, None] < position[:, None, :]  # i ranked above j
    pair_losses = torch.where(above, -F.logsigmoid(z), torch.zeros_like(z))
    per_prompt = pair_losses.sum(dim=(1, 2)) / (k * (k - 1) / 2)
    return (per_prompt.sum() / max(p, 1)).to(rewards.dtype)
