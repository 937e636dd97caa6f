"""This is what you get when each prompt's C(K, 2) pair losses are summed instead of averaged: the 1 / C(K, 2)
weighting is missing, so a prompt with more responses weighs more.

Overrides: ranking_loss
"""

import torch
import torch.nn.functional as F


def ranking_loss(rewards, ranking):
    check_ranking_inputs(rewards, ranking)
    k = rewards.shape[1]
    ordered = rewards.gather(1, ranking)
    better, worse = torch.triu_indices(k, k, offset=1, device=rewards.device)
    z = ordered[:, better] - ordered[:, worse]
    return _mean(-F.logsigmoid(z).sum(dim=1))
