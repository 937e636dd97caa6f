"""Variant: a Python loop over the rows, F.normalize on each pair, torch.no_grad() copies of the projections."""

import torch
import torch.nn.functional as F

from helpers import check_views

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
def simsiam_loss(p1, p2, z1, z2):
    check_views(p1, p2, z1, z2)
    with torch.no_grad():
        targets = (z2.clone(), z1.clone())
    n = p1.shape[0]
    total = 0
    for p, z in zip((p1, p2), targets, strict=True):
        for i in range(n):
            u = F.normalize(p[i], dim=0, eps=1e-12)
            v = F.normalize(z[i], dim=0, eps=1e-12)
            total = total - (u * v).sum() / (2 * n)
    return total
