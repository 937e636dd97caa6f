"""GRPO with plain loops over groups, completions and tokens, each result assembled with torch.stack so the graph
to logp_new stays intact."""

import math

import torch

from helpers import check_loss_inputs, check_rewards


def group_advantages(rewards, group_size, eps=1e-4):
    check_rewards(rewards, group_size, eps)
    values = rewards.detach().tolist()
    out = []
    for start in range(0, len(values), group_size):
        group = values[start:start + group_size]
        mean = sum(group) / group_size
        if group_size == 1:
            out.append(0.0)
            continue
        std = math.sqrt(sum((v - mean) ** 2 for v in group) / (group_size - 1))
        out.extend((v - mean) / (std + eps) for v in group)
    return torch.tensor(out, dtype=rewards.dtype, device=rewards.device)


def grpo_loss(logp_new, logp_old, logp_ref, advantages, mask, clip_eps=0.2, beta=0.04):
    check_loss_inputs(logp_new, logp_old, logp_ref, advantages, mask, clip_eps, beta)
    n, t = logp_new.shape
    per_sequence = []
    for i in range(n):
        a = float(advantages[i])
        terms = []
        for j in range(t):
            if not bool(mask[i, j]):
                continue
            ratio = torch.exp(logp_new[i, j] - float(logp_old[i, j]))
            surrogate = torch.minimum(ratio * a, torch.clamp(ratio, 1 - clip_eps, 1 + clip_eps) * a)
            d = float(logp_ref[i, j]) - logp_new[i, j]
            terms.append(surrogate - beta * (torch.exp(d) - d - 1))
        if terms:
            per_sequence.append(torch.stack(terms).sum() / len(terms))
        else:
            per_sequence.append(logp_new[i].sum() * 0)  # no token: contributes 0, keeps the graph
    return -torch.stack(per_sequence).sum() / n
