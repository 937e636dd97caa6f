"""Variant: F.cross_entropy over the 2N x 2N logits with the partner index as the label."""

import math

import torch
import torch.nn.functional as F

from helpers import check_temperature, check_views


def nt_xent_loss(z1, z2, temperature):
    check_views(z1, z2)
    check_temperature(temperature)
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2]), dim=1, eps=1e-12)  # (2N, D)
    logits = z @ z.T / temperature  # (2N, 2N)
    logits = logits - torch.diag_embed(torch.full((2 * n,), math.inf, dtype=z.dtype))  # -inf on the diagonal
    labels = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])  # partner of each row
    return F.cross_entropy(logits, labels)  # mean over the 2N rows
