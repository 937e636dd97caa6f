"""No sort: each token's rank and the mass ranked before it come from pairwise comparisons ([..., V, V])."""

import torch

from helpers import check_logits, check_options, check_uniform


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    temperature, top_k, top_p = check_options(temperature, top_k, top_p)
    z = logits.detach()
    V = z.shape[-1]
    index = torch.arange(V, device=z.device)
    if temperature == 0:
        is_max = z == z.amax(dim=-1, keepdim=True)
        first = torch.where(is_max, index, V).amin(dim=-1, keepdim=True)
        return (index == first).to(z.dtype)
    scaled = (z - z.amax(dim=-1, keepdim=True)) / temperature
    a, b = scaled.unsqueeze(-1), scaled.unsqueeze(-2)  # [..., V, 1] token i, [..., 1, V] token j
    ahead = (b > a) | ((b == a) & (index.view(1, V) < index.view(V, 1)))  # [..., V, V]: j ranks before i
    rank = ahead.sum(dim=-1)  # [..., V]
    keep = rank < top_k if top_k > 0 else torch.ones_like(rank, dtype=torch.bool)
    if top_p < 1:
        probs = torch.softmax(scaled.masked_fill(~keep, float("-inf")), dim=-1)
        before = (ahead.to(probs.dtype) * probs.unsqueeze(-2)).sum(dim=-1)  # mass of the tokens ranked ahead
        keep = keep & ((before < top_p) | (rank == 0))
    return torch.softmax(scaled.masked_fill(~keep, float("-inf")), dim=-1)


def sample(logits, uniform, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    check_uniform(uniform, logits)
    probs = sampling_probs(logits, temperature, top_k, top_p)
    cdf = probs.cumsum(dim=-1)
    above = cdf > uniform.detach().unsqueeze(-1)
    V = probs.shape[-1]
    index = torch.arange(V, device=probs.device)
    first = torch.where(above, index, V).amin(dim=-1)
    last_nonzero = torch.where(probs > 0, index, -1).amax(dim=-1)
    return torch.where(first < V, first, last_nonzero)
