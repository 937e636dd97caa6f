"""This is what you get when ranking[p, i] is read as the rank of response i (0 = best) instead of the index of
the i-th best response: the two agree only when the permutation is its own inverse.

Overrides: ranking_loss
"""

import torch
import torch.nn.functional as F


def ranking_loss(rewards, ranking):
    check_ranking_inputs(rewards, ranking)
    k = rewards.shape[1]
    ordered = rewards.gather(1, ranking.argsort(dim=1))  # responses sorted by their "rank"
    better, worse = torch.triu_indices(k, k, offset=1, device=rewards.device)
    z = ordered[:, better] - ordered[:, worse]
    return _mean(-F.logsigmoid(z).mean(dim=1))
