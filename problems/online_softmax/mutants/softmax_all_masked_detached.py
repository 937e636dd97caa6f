"""This is what you get when the zeros of an input with no finite entry are detached from the graph: the values are right, but the result does not require grad although x does.

Overrides: online_softmax
"""

import torch


def online_softmax(x, block_size):
    check_logits(x, block_size)
    m, ell = _online_statistics(x, block_size)
    p = torch.exp(x - _finite(m)[..., None])
    out = p / torch.where(ell > 0, ell, torch.ones_like(ell))[..., None]
    return out.detach() if not bool((ell > 0).any()) else out
