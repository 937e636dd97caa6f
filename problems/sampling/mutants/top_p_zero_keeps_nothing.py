"""This is what you get when the first-ranked token is not always kept: with top_p = 0 nothing survives and the row becomes nan.

Overrides: _top_p_keep
Source: ml-explore/mlx-lm pull request #1912 (a small top_p masks every token and the draw becomes uniform noise)
"""

import torch


def _top_p_keep(ranked_probs, top_p):
    before = torch.cumsum(ranked_probs, dim=-1) - ranked_probs
    return before < top_p
