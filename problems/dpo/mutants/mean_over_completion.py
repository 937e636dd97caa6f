"""This is what you get when the completion's log-probs are averaged over its tokens instead of summed (the length-normalised objective of IPO or SimPO, not DPO's log pi(y | x)).

Source: eric-mitchell/direct-preference-optimization trainers.py, _get_batch_logps with average_log_prob=True (see issue #40)

Overrides: _masked_sum
"""

import torch


def _masked_sum(token_logps, mask):
    total = torch.where(mask, token_logps, torch.zeros_like(token_logps)).sum(dim=-1)
    return total / mask.sum(dim=-1).clamp_min(1)
