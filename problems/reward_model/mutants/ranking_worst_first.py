"""This is what you get when the ranking is read worst first: every later response is taken to beat every
earlier one.

Overrides: ranking_loss
"""

import torch
import torch.nn.functional as F


def ranking_loss(rewards, ranking):
    check_ranking_inputs(rewards, ranking)
    k = rewards.shape[1]
    ordered = rewards.gather(1, ranking)
    better, worse = torch.triu_indices(k, k, offset=1, device=rewards.device)
    z = ordered[:, worse] - ordered[:, better]
    return _mean(-F.logsigmoid(z).mean(dim=1))
