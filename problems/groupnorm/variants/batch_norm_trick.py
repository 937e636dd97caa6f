"""Variant: the trick of early GroupNorm ports. Reshaped to [1, N*G, m], every (sample, group) row becomes one
"channel" of a batch of one, and training-mode F.batch_norm (allowed here) normalises each with its own mean and
biased variance; the per-channel gain and bias follow on the restored shape."""

import math

import torch.nn.functional as F

from helpers import check_affine, check_eps, check_input, check_num_groups


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    check_input(x)
    check_num_groups(num_groups, x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    n, c = x.shape[0], x.shape[1]
    m = (c // num_groups) * math.prod(x.shape[2:])
    if n == 0 or m == 1:
        y = x * 0.0  # no rows, or rows of one value (normalised to 0), which training-mode batch_norm refuses
    else:
        rows = x.reshape(1, n * num_groups, m)
        y = F.batch_norm(rows, None, None, training=True, momentum=0.0, eps=eps).reshape(x.shape)
    channel_shape = (-1,) + (1,) * (x.dim() - 2)
    if weight is not None:
        y = y * weight.reshape(channel_shape)
    if bias is not None:
        y = y + bias.reshape(channel_shape)
    return y
