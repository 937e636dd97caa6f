"""This is what you get when a ranking is turned into its K - 1 neighbouring pairs (first against second, second
against third, ...) instead of all C(K, 2) pairs.

Overrides: ranking_loss
"""

import torch.nn.functional as F


def ranking_loss(rewards, ranking):
    check_ranking_inputs(rewards, ranking)
    ordered = rewards.gather(1, ranking)
    z = ordered[:, :-1] - ordered[:, 1:]
    return _mean(-F.logsigmoid(z).mean(dim=1))
