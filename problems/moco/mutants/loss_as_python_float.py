"""returns the loss as a Python float with .item().

Overrides: _infonce
"""

import torch


def _infonce(logits):
    return (torch.logsumexp(logits, dim=1) - logits[:, 0]).mean().item()
