"""This is what you get when the draw walks the tokens from the most probable down instead of in vocabulary order: each token keeps its probability, but a given u picks another token.

Overrides: _draw
"""

import torch


def _draw(probs, u):
    ranked, order = torch.sort(probs.double(), descending=True, stable=True)
    above = (torch.cumsum(ranked, dim=0) > u).nonzero()
    return int(order[above[0, 0]]) if len(above) else int(order[(ranked > 0).nonzero()[-1, 0]])
