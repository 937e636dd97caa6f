"""This is what you get when the softmax normalises over the queries (axis -2) instead of over the keys.

Overrides: _softmax_last
"""

import torch


def _softmax_last(scores):
    if scores.shape[-1] == 0 or scores.shape[-2] == 0:
        return scores
    top = scores.detach().amax(dim=-2, keepdim=True)
    exps = torch.exp(scores - top)
    return exps / exps.sum(dim=-2, keepdim=True)
