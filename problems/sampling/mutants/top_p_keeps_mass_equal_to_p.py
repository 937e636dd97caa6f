"""This is what you get when the nucleus keeps a token whose mass ranked before it equals p (before <= p instead of before < p): when a prefix of the ranking holds exactly p, the next token is kept although the nucleus already reached p.

Overrides: _top_p_keep
"""

import torch


def _top_p_keep(ranked_probs, top_p):
    before = torch.cumsum(ranked_probs, dim=-1) - ranked_probs
    keep = before <= top_p
    keep[..., 0] = True
    return keep
