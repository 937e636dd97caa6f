"""This is what you get when the causal mask compares the key's position inside its block (0..b-1) with the query's position instead of the key's absolute position start + j: every block after the first lets queries see future keys.

Overrides: _allowed
"""

import torch


def _allowed(lq, lk, start, stop, device):
    i = torch.arange(lq, device=device)[:, None]
    j = torch.arange(0, stop - start, device=device)[None, :]
    return j <= i + (lk - lq)
