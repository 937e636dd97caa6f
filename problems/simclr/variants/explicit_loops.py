"""Variant: one anchor at a time, gathering its 2N - 1 candidates in a Python loop."""

import torch

from helpers import check_temperature, check_views


def nt_xent_loss(z1, z2, temperature):
    check_views(z1, z2)
    check_temperature(temperature)
    n = z1.shape[0]
    views = [row / torch.clamp(torch.linalg.vector_norm(row), min=1e-12) for row in torch.cat([z1, z2])]
    losses = []
    for k, anchor in enumerate(views):
        partner = k + n if k < n else k - n
        candidates = torch.stack([torch.dot(anchor, views[j]) / temperature for j in range(2 * n) if j != k])
        positive = torch.dot(anchor, views[partner]) / temperature
        losses.append(torch.logsumexp(candidates, dim=0) - positive)
    return torch.stack(losses).sum() / (2 * n)
