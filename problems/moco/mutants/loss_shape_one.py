"""returns the loss with shape [1] instead of a 0-d tensor.

Overrides: _infonce
"""

import torch


def _infonce(logits):
    return (torch.logsumexp(logits, dim=1) - logits[:, 0]).mean().reshape(1)
