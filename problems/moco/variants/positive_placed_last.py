# VARIANT (correct): the positive logit placed after the K negatives; negative log-likelihood of the last column.
import torch

from helpers import validate_enqueue_inputs, validate_loss_inputs, validate_momentum_inputs


def unit_rows(x):
    return x / torch.linalg.vector_norm(x, dim=1, keepdim=True).clamp(min=1e-12)


def moco_loss(query, key, queue, temperature):
    validate_loss_inputs(query, key, queue, temperature)
    q, k, n = unit_rows(query), unit_rows(key).detach(), unit_rows(queue).detach()
    logits = torch.cat([q @ n.T, torch.sum(q * k, dim=1, keepdim=True)], dim=1) / temperature  # [B, K + 1]
    log_probabilities = torch.log_softmax(logits, dim=1)
    return -log_probabilities[:, -1].mean()


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    with torch.no_grad():
        return momentum * key + (1 - momentum) * query


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape
    batch = keys.shape[0]
    result = queue.detach().clone()
    with torch.no_grad():
        written = unit_rows(keys.double()).to(keys.dtype) if batch else keys
    position = pointer
    for row in written:
        result[position] = row
        position = (position + 1) % size
    return result, position
