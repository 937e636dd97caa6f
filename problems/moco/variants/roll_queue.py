# VARIANT (correct): enqueue by rotating the queue so the write position is row 0, then rotating back.
import torch

from helpers import validate_enqueue_inputs, validate_loss_inputs, validate_momentum_inputs


def normalise(x):
    return x / x.norm(dim=1, keepdim=True).clamp_min(1e-12)


def moco_loss(query, key, queue, temperature):
    validate_loss_inputs(query, key, queue, temperature)
    q = normalise(query)
    k = normalise(key.detach())
    n = normalise(queue.detach())
    logits = torch.cat([torch.diagonal(q @ k.T).unsqueeze(1), q @ n.T], dim=1) / temperature
    top = logits.max(dim=1, keepdim=True).values.detach()
    log_sum = top.squeeze(1) + torch.log(torch.exp(logits - top).sum(dim=1))
    return (log_sum - logits[:, 0]).mean()


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    new = torch.empty_like(key, requires_grad=False)
    with torch.no_grad():
        new.copy_(key * momentum)
        new.add_(query * (1 - momentum))
    return new


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    keep = min(batch, size)
    start = (pointer + batch - keep) % size
    with torch.no_grad():
        rows = normalise(keys[batch - keep:].double()).to(queue.dtype)
        rotated = torch.roll(queue.detach(), shifts=-start, dims=0).clone()
        rotated[:keep] = rows
        return torch.roll(rotated, shifts=start, dims=0), (pointer + batch) % size
