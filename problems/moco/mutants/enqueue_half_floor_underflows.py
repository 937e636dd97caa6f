"""Enqueue normalises in the keys' own dtype; in float16 the floor 1e-12 rounds to 0, so a zero key row becomes nan.

Overrides: enqueue
"""

import torch


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    new_queue = queue.detach().clone()
    incoming = keys.detach() / torch.linalg.vector_norm(keys.detach(), dim=1, keepdim=True).clamp_min(NORM_FLOOR)
    new_queue[_slots(pointer, batch, size, queue.device)] = incoming[max(0, batch - size) :]
    return new_queue, (pointer + batch) % size
