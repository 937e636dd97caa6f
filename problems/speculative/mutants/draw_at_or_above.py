"""This is what you get when the draw takes the first token whose cumulative sum is at least u instead of above it: u = 0 picks a leading token of probability 0.

Overrides: _draw
"""

import torch


def _draw(probs, u):
    cdf = torch.cumsum(probs.double(), dim=0)
    above = (cdf >= u).nonzero()
    return int(above[0, 0]) if len(above) else int((probs > 0).nonzero()[-1, 0])
