# VARIANT (correct): cross-entropy over [positive, negatives] with label 0, F.normalize for the rows.
import torch
import torch.nn.functional as F

from helpers import validate_enqueue_inputs, validate_loss_inputs, validate_momentum_inputs


def moco_loss(query, key, queue, temperature):
    validate_loss_inputs(query, key, queue, temperature)
    q = F.normalize(query, dim=1)
    k = F.normalize(key.detach(), dim=1)
    negatives = F.normalize(queue.detach(), dim=1)
    logits = torch.cat([(q * k).sum(1, keepdim=True), q @ negatives.t()], dim=1) / temperature
    labels = torch.zeros(q.shape[0], dtype=torch.long, device=q.device)  # the positive sits in column 0
    return F.cross_entropy(logits, labels)


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    return (momentum * key + (1 - momentum) * query).detach()


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    new_queue = queue.detach().clone()
    incoming = F.normalize(keys.detach().double(), dim=1).to(keys.dtype)
    slots = [(pointer + j) % size for j in range(batch)]
    for j, slot in enumerate(slots):  # later writes overwrite earlier ones
        new_queue[slot] = incoming[j]
    return new_queue, (pointer + batch) % size
