"""Variant: computes everything in float64 and casts the loss back to the input dtype."""

import math

import torch

from helpers import check_temperature, check_views


def nt_xent_loss(z1, z2, temperature):
    check_views(z1, z2)
    check_temperature(temperature)
    n = z1.shape[0]
    z = torch.cat([z1, z2]).to(torch.float64)
    z = z / z.norm(dim=1, keepdim=True).clamp_min(1e-12)
    logits = (z @ z.T / temperature).fill_diagonal_(-math.inf)
    index = torch.arange(2 * n)
    loss = (torch.logsumexp(logits, dim=1) - logits[index, (index + n) % (2 * n)]).mean()
    return loss.to(z1.dtype)
