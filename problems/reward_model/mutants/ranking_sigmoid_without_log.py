"""This is what you get when the ranking loss averages -sigmoid(r_better - r_worse) over the pairs, without the
log: a pair ranked the wrong way by a wide gap then gets almost no gradient.

Overrides: ranking_loss
Source: HarderThenHarder/transformers_tasks, RLHF/model.py (compute_rank_list_loss sums F.sigmoid(rank_rewards[i] - rank_rewards[j]) over all pairs and returns its negative mean; issue #15)
"""

import torch


def ranking_loss(rewards, ranking):
    check_ranking_inputs(rewards, ranking)
    k = rewards.shape[1]
    ordered = rewards.gather(1, ranking)
    better, worse = torch.triu_indices(k, k, offset=1, device=rewards.device)
    z = ordered[:, better] - ordered[:, worse]
    return _mean(-torch.sigmoid(z).mean(dim=1))
