"""Variant: F.cosine_similarity with the contract's floor, eps = 1e-12."""

import torch.nn.functional as F

from helpers import check_views

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
def simsiam_loss(p1, p2, z1, z2):
    check_views(p1, p2, z1, z2)
    first = F.cosine_similarity(p1, z2.detach(), dim=1, eps=1e-12).mean()
    second = F.cosine_similarity(p2, z1.detach(), dim=1, eps=1e-12).mean()
    return -0.5 * (first + second)
