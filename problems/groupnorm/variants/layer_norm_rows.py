"""Variant: each (sample, group) row is a LayerNorm without affine parameters (F.layer_norm is allowed here), and the
per-channel affine step is torch.addcmul on the restored shape."""

import math

import torch
import torch.nn.functional as F

from helpers import check_affine, check_eps, check_input, check_num_groups


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    check_input(x)
    check_num_groups(num_groups, x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    row = (x.shape[1] // num_groups) * math.prod(x.shape[2:])  # spelled out: -1 is ambiguous when N = 0
    rows = x.reshape(x.shape[0], num_groups, row)
    y = F.layer_norm(rows, (row,), eps=eps).reshape(x.shape)
    channel_shape = (-1,) + (1,) * (x.dim() - 2)
    gain = weight.reshape(channel_shape) if weight is not None else torch.ones((), dtype=x.dtype)
    shift = bias.reshape(channel_shape) if bias is not None else torch.zeros((), dtype=x.dtype)
    return torch.addcmul(shift, y, gain)
