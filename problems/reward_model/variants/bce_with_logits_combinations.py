"""A correct solution through torch's binary cross-entropy on logits, with itertools for the ranking's pairs."""

import itertools

import torch
import torch.nn.functional as F

from helpers import check_accuracy_inputs, check_preference_inputs, check_ranking_inputs


def preference_loss(r_chosen, r_rejected, margin=None, label=None):
    check_preference_inputs(r_chosen, r_rejected, margin, label)
    z = r_chosen - r_rejected if margin is None else r_chosen - r_rejected - margin
    target = torch.ones_like(z) if label is None else label
    total = F.binary_cross_entropy_with_logits(z, target, reduction="sum")
    return total / max(z.shape[0], 1)


def preference_accuracy(r_chosen, r_rejected):
    check_accuracy_inputs(r_chosen, r_rejected)
    signs = torch.sign(r_chosen.detach() - r_rejected.detach()).double()  # 1 win, 0 tie, -1 loss
    return float(((signs + 1) / 2).mean())


def ranking_loss(rewards, ranking):
    check_ranking_inputs(rewards, ranking)
    k = rewards.shape[1]
    pairs = list(itertools.combinations(range(k), 2))
    prompt_losses = []
    for row, order in zip(rewards, ranking):
        better = torch.stack([row[order[a]] for a, _ in pairs])
        worse = torch.stack([row[order[b]] for _, b in pairs])
        prompt_losses.append(preference_loss(better, worse))
    if not prompt_losses:
        return rewards.sum() * 0.0
    return torch.stack(prompt_losses).mean()
