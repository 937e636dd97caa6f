"""Variant: einsum similarities, the diagonal removed by gathering the 2N - 1 off-diagonal columns."""

import torch

from helpers import check_temperature, check_views


def nt_xent_loss(z1, z2, temperature):
    check_views(z1, z2)
    check_temperature(temperature)
    n = z1.shape[0]
    z = torch.cat([z1, z2])
    z = z / z.norm(dim=-1, keepdim=True).clamp(min=1e-12)
    logits = torch.einsum("id,jd->ij", z, z) / temperature  # (2N, 2N)
    columns = torch.arange(2 * n)
    off_diagonal = columns[None, :].expand(2 * n, 2 * n)[columns[:, None] != columns[None, :]].view(2 * n, 2 * n - 1)
    candidates = torch.gather(logits, 1, off_diagonal)  # (2N, 2N - 1)
    positive = torch.einsum("id,id->i", z, z.roll(n, dims=0)) / temperature  # partner = row rolled by N
    return (torch.logsumexp(candidates, dim=1) - positive).mean()
