"""float64 inside, torch.topk-free masking by ranks, and torch.searchsorted (right=True) for the draw."""

import torch

from helpers import check_logits, check_options, check_uniform


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    temperature, top_k, top_p = check_options(temperature, top_k, top_p)
    z = logits.detach().to(torch.float64)
    if temperature == 0:
        out = torch.zeros_like(z)
        out.scatter_(-1, z.argmax(dim=-1, keepdim=True), 1.0)
        return out.to(logits.dtype)
    scaled = (z - z.amax(dim=-1, keepdim=True)) / temperature
    sorted_scaled, order = scaled.sort(dim=-1, descending=True, stable=True)
    V = z.shape[-1]
    position = torch.arange(V, device=z.device).expand_as(sorted_scaled)
    removed = position >= top_k if 0 < top_k < V else torch.zeros_like(sorted_scaled, dtype=torch.bool)
    if top_p < 1:
        probs = torch.softmax(sorted_scaled.masked_fill(removed, float("-inf")), dim=-1)
        exclusive = torch.cat([torch.zeros_like(probs[..., :1]), probs.cumsum(dim=-1)[..., :-1]], dim=-1)
        removed = removed | ((exclusive >= top_p) & (position > 0))
    sorted_probs = torch.softmax(sorted_scaled.masked_fill(removed, float("-inf")), dim=-1)
    out = torch.empty_like(sorted_probs).scatter_(-1, order, sorted_probs)
    return out.to(logits.dtype)


def sample(logits, uniform, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    check_uniform(uniform, logits)
    probs = sampling_probs(logits, temperature, top_k, top_p)
    V = probs.shape[-1]
    cdf = probs.cumsum(dim=-1).contiguous()
    u = uniform.detach().to(cdf.dtype).unsqueeze(-1).contiguous()
    if cdf.dtype != uniform.dtype:  # compare in the wider of the two dtypes
        cdf, u = cdf.double(), uniform.detach().double().unsqueeze(-1).contiguous()
    index = torch.searchsorted(cdf, u, right=True).squeeze(-1)
    last_nonzero = V - 1 - (probs > 0).flip(-1).to(torch.int64).argmax(dim=-1)
    return torch.minimum(index, last_nonzero)
