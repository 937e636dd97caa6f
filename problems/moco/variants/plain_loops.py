# VARIANT (correct): Python loops over the batch rows, a hand-written stable log-sum-exp, element loops for the EMA.
import torch

from helpers import validate_enqueue_inputs, validate_loss_inputs, validate_momentum_inputs


def unit(row):
    return row / max(float(torch.sqrt((row * row).sum())), 1e-12)


def moco_loss(query, key, queue, temperature):
    validate_loss_inputs(query, key, queue, temperature)
    negatives = queue.detach() / queue.detach().norm(dim=1, keepdim=True).clamp(min=1e-12)  # [K, D]
    total = None
    for i in range(query.shape[0]):
        q = query[i] / torch.clamp(torch.linalg.vector_norm(query[i]), min=1e-12)  # finite gradient at 0
        positive = (q * unit(key[i].detach())).sum() / temperature
        logits = torch.cat([positive.reshape(1), negatives @ q / temperature])
        top = logits.max().detach()
        row_loss = top + torch.log(torch.exp(logits - top).sum()) - positive
        total = row_loss if total is None else total + row_loss
    return total / query.shape[0]


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    flat_query = query.detach().reshape(-1)
    flat_key = key.detach().reshape(-1)
    out = torch.zeros_like(flat_key)
    for index in range(flat_key.numel()):
        out[index] = momentum * flat_key[index] + (1 - momentum) * flat_query[index]
    return out.reshape(key.shape)


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size = queue.shape[0]
    out = queue.detach().clone()
    for j in range(keys.shape[0]):
        row = keys[j].detach().double()
        out[pointer] = (row / max(float(torch.sqrt((row * row).sum())), 1e-12)).to(queue.dtype)
        pointer = (pointer + 1) % size
    return out, pointer
