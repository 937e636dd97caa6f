"""when B > K keeps the first K keys instead of the last K.

Overrides: enqueue
"""

import torch


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    new_queue = queue.detach().clone()
    incoming = _normalise_rows(keys.detach())
    kept = incoming[: min(batch, size)]
    new_queue[(pointer + torch.arange(kept.shape[0])) % size] = kept
    return new_queue, (pointer + batch) % size
