"""Reference GroupNorm (Wu & He, 2018): normalise each sample's groups of channels with their own statistics."""

import math

import torch

from helpers import check_affine, check_eps, check_input, check_num_groups


def _grouped(x, num_groups):
    """[N, C, *S] -> [N, G, (C / G) * prod(S)]: row (n, g) holds every value of group g of sample n.

    Channels 0 .. C/G - 1 form group 0, the next C/G group 1, and so on: in [N, C, *S] order a group's channels
    and all their positions are one contiguous run, so a reshape (which copies a strided view when it must) is
    all it takes. The row length is spelled out: with N = 0, reshape(N, G, -1) cannot infer it.
    """
    n, c = x.shape[0], x.shape[1]
    return x.reshape(n, num_groups, (c // num_groups) * math.prod(x.shape[2:]))


def _statistics(grouped):
    """The mean and the biased variance of each row, the variance in two passes (no E[x^2] - E[x]^2)."""
    mean = grouped.mean(dim=-1, keepdim=True)  # [N, G, 1]
    centred = grouped - mean
    var = (centred * centred).mean(dim=-1, keepdim=True)  # divide by the row length, not the length - 1
    return centred, var


def _per_channel(p, x):
    """A [C] tensor shaped to broadcast against x: [C, 1, ..., 1], one 1 per spatial dimension."""
    return p.reshape(-1, *([1] * (x.dim() - 2)))


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    check_input(x)
    check_num_groups(num_groups, x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    centred, var = _statistics(_grouped(x, num_groups))
    y = (centred / torch.sqrt(var + eps)).reshape(x.shape)  # eps inside the root: a floor under the variance
    if weight is not None:
        y = y * _per_channel(weight, x)  # one gain per channel, not per group
    if bias is not None:
        y = y + _per_channel(bias, x)
    return y
