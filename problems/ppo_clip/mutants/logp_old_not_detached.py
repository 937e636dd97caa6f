"""This is what you get when logp_old is not detached: the old policy's log-probabilities receive gradients as if they were being trained.

Overrides: _ratio
"""

import torch


def _ratio(logp_new, logp_old):
    return torch.exp(logp_new - logp_old)
