"""This is what you get when the masked log-probs are averaged over all T positions (a .mean(dim=1)) instead of summed: every sequence is divided by the padded length.

Source: jingyaogong/minimind issue #298 (dpo_loss takes .mean(dim=1) of the masked token log-probs)

Overrides: _masked_sum
"""

import torch


def _masked_sum(token_logps, mask):
    masked = torch.where(mask, token_logps, torch.zeros_like(token_logps))
    return masked.sum(dim=-1) / max(masked.shape[-1], 1)
