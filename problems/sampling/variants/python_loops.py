"""Plain Python over each row: lists sorted with a key, sums in Python floats (float64), cast back at the end."""

import math

import torch

from helpers import check_logits, check_options, check_uniform


def _row_probs(row, temperature, top_k, top_p):
    if temperature == 0:
        best = max(range(len(row)), key=lambda i: (row[i], -i))
        return [1.0 if i == best else 0.0 for i in range(len(row))]
    top = max(row)
    scaled = [(z - top) / temperature for z in row]
    ranking = sorted(range(len(row)), key=lambda i: (-scaled[i], i))
    kept = ranking[:top_k] if top_k > 0 else list(ranking)
    if top_p < 1:
        total = sum(math.exp(scaled[i]) for i in kept)
        nucleus, mass = [], 0.0
        for i in kept:
            if nucleus and mass >= top_p:
                break
            nucleus.append(i)
            mass += math.exp(scaled[i]) / total
        kept = nucleus
    total = sum(math.exp(scaled[i]) for i in kept)
    probs = [0.0] * len(row)
    for i in kept:
        probs[i] = math.exp(scaled[i]) / total
    return probs


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    temperature, top_k, top_p = check_options(temperature, top_k, top_p)
    rows = logits.detach().double().reshape(-1, logits.shape[-1]).tolist()
    out = [_row_probs(row, temperature, top_k, top_p) for row in rows]
    return torch.tensor(out, dtype=torch.float64).reshape(logits.shape).to(logits.dtype)


def sample(logits, uniform, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    check_uniform(uniform, logits)
    probs = sampling_probs(logits, temperature, top_k, top_p).reshape(-1, logits.shape[-1]).tolist()
    tokens = []
    for row, u in zip(probs, uniform.detach().double().reshape(-1).tolist(), strict=True):
        running, chosen = 0.0, None
        for i, p in enumerate(row):
            running += p
            if running > u:
                chosen = i
                break
        if chosen is None:
            chosen = max(i for i, p in enumerate(row) if p > 0)
        tokens.append(chosen)
    return torch.tensor(tokens, dtype=torch.int64).reshape(logits.shape[:-1])
