"""Variant: -inf on the diagonal via torch.where and a hand-written max-shifted logsumexp."""

import math

import torch

from helpers import check_temperature, check_views


def nt_xent_loss(z1, z2, temperature):
    check_views(z1, z2)
    check_temperature(temperature)
    n = z1.shape[0]
    z = torch.cat([z1, z2])
    z = z / torch.maximum(z.pow(2).sum(dim=1, keepdim=True).sqrt(), torch.tensor(1e-12, dtype=z.dtype))
    similarity = (z @ z.T) / temperature  # (2N, 2N)
    eye = torch.eye(2 * n, dtype=torch.bool)
    masked = torch.where(eye, torch.tensor(-math.inf, dtype=z.dtype), similarity)
    shift = masked.max(dim=1, keepdim=True).values.detach()  # (2N, 1), finite: every row has a candidate
    log_denominator = shift.squeeze(1) + torch.log(torch.exp(masked - shift).sum(dim=1))
    positive = torch.cat([torch.diagonal(similarity, n), torch.diagonal(similarity, -n)])  # (2N,)
    return (log_denominator - positive).mean()
