"""This is what you get when z and the codes are normalised to unit length before the nearest code is chosen (cosine similarity): the contract compares the vectors themselves.

Overrides: _nearest
"""

import torch.nn.functional as F


def _nearest(z, codebook):
    return (F.normalize(z, dim=1) @ F.normalize(codebook, dim=1).t()).argmax(dim=1)
