"""Variant: [N, G, C/G, *spatial] in float64, torch.var_mean with correction=0 over every axis after G, rsqrt,
the affine step on the grouped view, and one conversion back to x's dtype at the end."""

import torch

from helpers import check_affine, check_eps, check_input, check_num_groups


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    check_input(x)
    check_num_groups(num_groups, x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    n, c = x.shape[0], x.shape[1]
    spatial = tuple(x.shape[2:])
    grouped = x.to(torch.float64).reshape(n, num_groups, c // num_groups, *spatial)
    dims = tuple(range(2, grouped.dim()))
    var, mean = torch.var_mean(grouped, dim=dims, correction=0, keepdim=True)
    y = (grouped - mean) * torch.rsqrt(var + eps)
    affine_shape = (1, num_groups, c // num_groups) + (1,) * len(spatial)
    if weight is not None:
        y = y * weight.to(torch.float64).reshape(affine_shape)
    if bias is not None:
        y = y + bias.to(torch.float64).reshape(affine_shape)
    return y.reshape(x.shape).to(x.dtype)
