"""This is what you get when the ranking uses torch.argsort (an unstable sort): with a large vocabulary, equal logits come out in no particular order, so top-k and the nucleus keep arbitrary tokens of a tie instead of the smallest indices.

Overrides: _ranking
"""

import torch


def _ranking(scaled):
    return torch.argsort(-scaled, dim=-1)
