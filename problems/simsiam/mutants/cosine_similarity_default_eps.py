"""This is what you get when F.cosine_similarity is used with its default eps = 1e-8: rows shorter than 1e-8 are floored at 1e-8, not 1e-12.

Source: gergopool/sslic sslic/losses/simsiam.py (F.cosine_similarity with the default eps)
Overrides: _negative_cosine
"""

import torch.nn.functional as F


def _negative_cosine(p, z):
    return -F.cosine_similarity(p, z.detach(), dim=1).mean()
