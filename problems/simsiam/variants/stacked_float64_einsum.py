"""Variant: both pairs stacked into one [2N, D] batch, float64 inside, einsum, cast back."""

import torch

from helpers import check_views

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
def simsiam_loss(p1, p2, z1, z2):
    check_views(p1, p2, z1, z2)
    p = torch.cat([p1, p2]).double()  # (2N, D): the predictions of views 1 and 2
    z = torch.cat([z2, z1]).detach().double()  # (2N, D): the other view's projection, row for row
    dots = torch.einsum("nd,nd->n", p, z)
    norms = torch.linalg.vector_norm(p, dim=1).clamp_min(1e-12) * torch.linalg.vector_norm(z, dim=1).clamp_min(1e-12)
    return (-(dots / norms).mean()).to(p1.dtype)  # the mean over 2N rows is the average of the two means
