# VARIANT (correct): einsum logits as in the official code, index_copy_ of the last K keys.
import torch
import torch.nn.functional as F

from helpers import validate_enqueue_inputs, validate_loss_inputs, validate_momentum_inputs


def moco_loss(query, key, queue, temperature):
    validate_loss_inputs(query, key, queue, temperature)
    q = F.normalize(query, dim=1)
    k = F.normalize(key, dim=1).detach()
    negatives = F.normalize(queue, dim=1).detach()
    l_pos = torch.einsum("nc,nc->n", q, k).unsqueeze(-1)  # [B, 1]
    l_neg = torch.einsum("nc,kc->nk", q, negatives)  # [B, K]
    logits = torch.cat([l_pos, l_neg], dim=1) / temperature
    return (torch.logsumexp(logits, dim=1) - logits[:, 0]).mean()


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    return key.detach().mul(momentum).add(query.detach(), alpha=1 - momentum)


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    keep = min(batch, size)
    first = (pointer + batch - keep) % size  # slot of the first surviving write
    rows = F.normalize(keys.detach()[batch - keep:].double(), dim=1).to(queue.dtype)
    slots = (first + torch.arange(keep)) % size
    return queue.detach().clone().index_copy_(0, slots, rows), (pointer + batch) % size
