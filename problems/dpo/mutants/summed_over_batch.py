"""This is what you get when the masked log-probs of the whole batch are summed into one number and every sequence is given that total.

Overrides: _masked_sum
"""

import torch


def _masked_sum(token_logps, mask):
    total = torch.where(mask, token_logps, torch.zeros_like(token_logps)).sum()
    return total.expand(token_logps.shape[0]).clone()
