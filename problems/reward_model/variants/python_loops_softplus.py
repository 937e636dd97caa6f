"""A correct solution with loops over the pairs: softplus(-z) per pair, added one by one, in plain Python loops."""

import torch
import torch.nn.functional as F

from helpers import check_accuracy_inputs, check_preference_inputs, check_ranking_inputs


def _pair(z, p):
    # -(p log sigma(z) + (1 - p) log sigma(-z)) = p softplus(-z) + (1 - p) softplus(z)
    return p * F.softplus(-z) + (1 - p) * F.softplus(z)


def preference_loss(r_chosen, r_rejected, margin=None, label=None):
    check_preference_inputs(r_chosen, r_rejected, margin, label)
    n = r_chosen.shape[0]
    total = (r_chosen * 0).sum() + (r_rejected * 0).sum()
    if margin is not None:
        total = total + (margin * 0).sum()
    if label is not None:
        total = total + (label * 0).sum()
    for i in range(n):
        z = r_chosen[i] - r_rejected[i]
        if margin is not None:
            z = z - margin[i]
        p = 1.0 if label is None else label[i]
        total = total + _pair(z, p)
    return total / max(n, 1)


def preference_accuracy(r_chosen, r_rejected):
    check_accuracy_inputs(r_chosen, r_rejected)
    score = 0.0
    for c, r in zip(r_chosen.tolist(), r_rejected.tolist()):
        score += 1.0 if c > r else 0.5 if c == r else 0.0
    return score / len(r_chosen)


def ranking_loss(rewards, ranking):
    check_ranking_inputs(rewards, ranking)
    p, k = rewards.shape
    total = (rewards * 0).sum()
    for row in range(p):
        order = ranking[row].tolist()
        prompt = (rewards[row] * 0).sum()
        for a in range(k):
            for b in range(a + 1, k):
                prompt = prompt + _pair(rewards[row, order[a]] - rewards[row, order[b]], 1.0)
        total = total + prompt / (k * (k - 1) // 2)
    return total / max(p, 1)
