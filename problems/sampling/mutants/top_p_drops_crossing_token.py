"""This is what you get when the nucleus keeps only tokens whose running total, including themselves, stays within p: the token that carries the total past p is dropped, so the nucleus holds less than p.

Overrides: _top_p_keep
Source: rasbt/reasoning-from-scratch issue #164 (`cumprobas <= top_p` excludes the crossing token); fishaudio/fish-speech pull request #1171 (the same `cum_probs > top_p` removal mask)
"""

import torch


def _top_p_keep(ranked_probs, top_p):
    keep = torch.cumsum(ranked_probs, dim=-1) <= top_p
    keep[..., 0] = True
    return keep
