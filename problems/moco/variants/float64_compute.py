# VARIANT (correct): computes everything in float64 and casts the results back to the inputs' dtype.
import torch

from helpers import validate_enqueue_inputs, validate_loss_inputs, validate_momentum_inputs


def normalise64(x):
    x = x.to(torch.float64)
    return x / x.norm(dim=1, keepdim=True).clamp_min(1e-12)


def moco_loss(query, key, queue, temperature):
    validate_loss_inputs(query, key, queue, temperature)
    q = normalise64(query)
    k = normalise64(key.detach())
    n = normalise64(queue.detach())
    logits = torch.cat([(q * k).sum(1, keepdim=True), q @ n.T], dim=1) / temperature
    loss = (torch.logsumexp(logits, dim=1) - logits[:, 0]).mean()
    return loss.to(query.dtype)


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    with torch.no_grad():
        exact = momentum * key.to(torch.float64) + (1 - momentum) * query.to(torch.float64)
        return exact.to(key.dtype)


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    out = queue.detach().clone()
    rows = normalise64(keys.detach()).to(queue.dtype)
    for j in range(max(0, batch - size), batch):
        out[(pointer + j) % size] = rows[j]
    return out, (pointer + batch) % size
