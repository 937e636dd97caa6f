"""Log-sum-exp shifted by the positive logit instead of the largest one; exp overflows when a negative wins by 1/T.

Overrides: _infonce
"""

import torch


def _infonce(logits):
    return torch.log(torch.exp(logits - logits[:, :1]).sum(dim=1)).mean()
