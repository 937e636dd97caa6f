# VARIANT (correct): torch.lerp for the EMA, a mask-free scatter through index_put for the queue.
import torch

from helpers import validate_enqueue_inputs, validate_loss_inputs, validate_momentum_inputs


def normalised(x):
    norms = x.norm(p=2, dim=-1, keepdim=True)
    return x / torch.maximum(norms, torch.full_like(norms, 1e-12))


def moco_loss(query, key, queue, temperature):
    validate_loss_inputs(query, key, queue, temperature)
    q = normalised(query)
    with torch.no_grad():
        k = normalised(key)
        negatives = normalised(queue)
    positive = torch.sum(q * k, dim=-1) / temperature  # [B]
    negative = torch.matmul(q, negatives.transpose(0, 1)) / temperature  # [B, K]
    everything = torch.cat([positive[:, None], negative], dim=-1)
    return torch.mean(torch.logsumexp(everything, dim=-1) - positive)


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    with torch.no_grad():
        return torch.lerp(key, query, 1.0 - momentum)


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    out = queue.detach().clone()
    if batch:
        slots = (pointer + torch.arange(batch)) % size
        rows = normalised(keys.detach().double()).to(keys.dtype)
        last = {}
        for j in range(batch):  # the last write to each slot wins
            last[int(slots[j])] = j
        index = torch.tensor(list(last.keys()), dtype=torch.long)
        out.index_put_((index,), rows[list(last.values())])
    return out, (pointer + batch) % size
