"""The softmax is exp(s) / sum(exp(s)) without subtracting the maximum: it overflows at logits of 1e4.

Overrides: _softmax_last
"""

import torch


def _softmax_last(scores):
    exps = torch.exp(scores)
    return exps / exps.sum(dim=-1, keepdim=True)
