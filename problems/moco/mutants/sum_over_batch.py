"""sums the per-row losses instead of averaging them.

Overrides: _infonce
"""

import torch


def _infonce(logits):
    return (torch.logsumexp(logits, dim=1) - logits[:, 0]).sum()
