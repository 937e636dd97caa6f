"""Einsum discretisation; the recurrence in float64 internally, cast back; the parallel form as Mamba-2's quadratic
"segment sum" matrix, exp(sum of delta * A over the steps s+1..t), built with a masked cumulative sum (never a
difference of two running sums), also in float64."""

import torch

from helpers import check_discretize_inputs, check_scan_inputs


def discretize(delta, A, B):
    check_discretize_inputs(delta, A, B)
    A_bar = torch.exp(torch.einsum("bld,dn->bldn", delta, A))
    B_bar = torch.einsum("bld,bln->bldn", delta, B)
    return A_bar, B_bar


def _float64(*tensors):
    return [None if t is None else t.to(torch.float64) for t in tensors]


def selective_scan(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    dtype = x.dtype
    x, delta, A, B, C, D, h0 = _float64(x, delta, A, B, C, D, h0)
    A_bar, B_bar = discretize(delta, A, B)
    batch, length, channels = x.shape
    h = x.new_zeros(batch, channels, A.shape[1]) if h0 is None else h0.clone()
    ys = []
    for t in range(length):
        h = A_bar[:, t] * h + B_bar[:, t] * x[:, t, :, None]
        ys.append(torch.einsum("bdn,bn->bd", h, C[:, t]))
    y = torch.stack(ys, dim=1) if ys else x.new_zeros(batch, 0, channels)
    if D is not None:
        y = y + D * x
    return y.to(dtype), h.to(dtype)


def _segsum(v):
    """[..., L] -> [..., L, L]: entry (t, s) = v[s+1] + ... + v[t] for s <= t (0 on the diagonal), -inf above."""
    length = v.shape[-1]
    grid = v.unsqueeze(-1).expand(*v.shape, length)  # [..., t, s] = v[t]
    strictly_lower = torch.ones(length, length, dtype=torch.bool, device=v.device).tril(-1)
    sums = torch.cumsum(grid.masked_fill(~strictly_lower, 0.0), dim=-2)
    lower = torch.ones(length, length, dtype=torch.bool, device=v.device).tril()
    return sums.masked_fill(~lower, float("-inf"))


def selective_scan_parallel(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    dtype = x.dtype
    x, delta, A, B, C, D, h0 = _float64(x, delta, A, B, C, D, h0)
    batch, length, channels = x.shape
    dA = torch.einsum("bld,dn->bdnl", delta, A)  # [batch, D, N, L]
    u = torch.einsum("bld,bln,bld->bdnl", delta, B, x)  # B_bar x
    weights = torch.exp(_segsum(dA))  # [batch, D, N, t, s]
    hs = torch.einsum("bdnts,bdns->bdnt", weights, u)
    if h0 is not None:
        hs = hs + torch.exp(torch.cumsum(dA, dim=-1)) * h0.unsqueeze(-1)
    y = torch.einsum("bdnt,btn->btd", hs, C)
    if D is not None:
        y = y + D * x
    if length:
        last = hs[..., -1]
    elif h0 is not None:
        last = h0.clone()
    else:
        last = x.new_zeros(batch, channels, A.shape[1])
    return y.to(dtype), last.to(dtype)
