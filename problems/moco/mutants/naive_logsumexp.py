"""computes log(sum(exp(logits))) without subtracting the maximum (overflows at small T).

Overrides: _infonce
"""

import torch


def _infonce(logits):
    return (torch.log(torch.exp(logits).sum(dim=1)) - logits[:, 0]).mean()
