"""This is what you get when the entropy takes the log of a softmax: an action whose probability rounds to 0 gives 0 * log 0 = 0 * -inf = nan.

Overrides: _entropy
"""

import torch


def _entropy(log_probs):
    probs = torch.softmax(log_probs, dim=-1)
    return -(probs * torch.log(probs)).sum(dim=-1)
