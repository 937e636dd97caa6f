"""This is what you get when the labels are shifted by one inside the function although they are already aligned with the logits (logits[:, t] scored against labels[:, t + 1]): the shift is done twice.

Source: wdndev/tiny-llm-zh issue #10 (labels shifted when the dataset is built and again in the forward pass)

Overrides: _token_logps, _masked_sum
"""

import torch


def _token_logps(logits, labels):
    logps = torch.log_softmax(logits[:, :-1], dim=-1)
    return logps.gather(-1, labels[:, 1:].unsqueeze(-1)).squeeze(-1)  # [B, T - 1]


def _masked_sum(token_logps, mask):
    mask = mask[:, 1:]
    return torch.where(mask, token_logps, torch.zeros_like(token_logps)).sum(dim=-1)
