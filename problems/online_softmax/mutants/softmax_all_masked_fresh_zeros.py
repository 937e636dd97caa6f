"""This is what you get when an input of only -inf entries is answered with a fresh torch.zeros_like(x): the values are the zeros the contract defines, but the result no longer requires grad when x does.

Overrides: online_softmax
"""

import torch


def online_softmax(x, block_size):
    check_logits(x, block_size)
    if bool((x == float("-inf")).all()):
        return torch.zeros_like(x)
    m, ell = _online_statistics(x, block_size)
    p = torch.exp(x - _finite(m)[..., None])
    return p / torch.where(ell > 0, ell, torch.ones_like(ell))[..., None]
