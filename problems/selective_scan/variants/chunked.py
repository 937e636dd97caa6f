"""Chunks of four steps: inside a chunk every state comes at once from the decays between its steps (a masked
cumulative sum of delta * A, exponentiated), and the state at the end of a chunk starts the next one. Four times
fewer sequential rounds than the recurrence; the recurrence itself is written with torch.unbind."""

import torch

from helpers import check_discretize_inputs, check_scan_inputs

CHUNK = 4


def discretize(delta, A, B):
    check_discretize_inputs(delta, A, B)
    return _discretize(delta, A, B)


def _discretize(delta, A, B):
    dt = delta[..., None]
    return torch.exp(dt * A), dt * B[:, :, None, :]


def selective_scan(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    A_bar, B_bar = _discretize(delta, A, B)
    u = B_bar * x[..., None]
    h = h0 if h0 is not None else torch.zeros(x.shape[0], x.shape[2], A.shape[1], dtype=x.dtype, device=x.device)
    ys = []
    for a_t, u_t, c_t in zip(torch.unbind(A_bar, 1), torch.unbind(u, 1), torch.unbind(C, 1), strict=True):
        h = a_t * h + u_t
        ys.append((h * c_t[:, None, :]).sum(-1))
    y = torch.stack(ys, 1) if ys else torch.zeros_like(x)
    if D is not None:
        y = y + x * D
    return y, h.clone() if not ys else h


def selective_scan_parallel(x, delta, A, B, C, D=None, h0=None):
    check_scan_inputs(x, delta, A, B, C, D, h0)
    batch, length, channels = x.shape
    dA = delta[..., None] * A  # [batch, L, D, N]
    u = delta[..., None] * B[:, :, None, :] * x[..., None]
    h = h0 if h0 is not None else torch.zeros(batch, channels, A.shape[1], dtype=x.dtype, device=x.device)
    pieces = []
    for start in range(0, length, CHUNK):
        block, inputs = dA[:, start:start + CHUNK], u[:, start:start + CHUNK]
        size = block.shape[1]
        # decay[t, s] = exp(dA_{s+1} + ... + dA_t) for s <= t, summed from the masked block itself
        grid = block[:, :, None].expand(-1, -1, size, -1, -1)  # [batch, t, s, D, N] = dA_t
        strictly = torch.ones(size, size, dtype=torch.bool, device=x.device).tril(-1)[None, :, :, None, None]
        sums = torch.cumsum(torch.where(strictly, grid, torch.zeros_like(grid)), dim=1)
        causal = torch.ones(size, size, dtype=torch.bool, device=x.device).tril()[None, :, :, None, None]
        decay = torch.where(causal, torch.exp(torch.where(causal, sums, torch.zeros_like(sums))),
                            torch.zeros_like(sums))
        states = (decay * inputs[:, None]).sum(2) + torch.exp(torch.cumsum(block, 1)) * h[:, None]
        pieces.append(states)
        h = states[:, -1]
    if not pieces:
        y = torch.zeros_like(x)
        if D is not None:
            y = y + x * D
        return y, h.clone()
    hs = torch.cat(pieces, 1)
    y = torch.einsum("bldn,bln->bld", hs, C)
    if D is not None:
        y = y + x * D
    return y, h
