"""This is what you get when the softmax is exp(s) / sum(exp(s)) without subtracting each row's maximum: logits of
1e4 overflow.

Overrides: _softmax_last
"""

import torch


def _softmax_last(scores):
    exps = torch.exp(scores)
    return exps / exps.sum(dim=-1, keepdim=True)
