"""This is what you get when the incoming keys are always normalised in float32 and cast back: right for
float16 and bfloat16 keys, but float64 keys are written only float32-accurate.

Overrides: enqueue
"""

import torch


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    new_queue = queue.detach().clone()  # [K, D]
    work = keys.detach().float()
    norms = torch.linalg.vector_norm(work, dim=1, keepdim=True).clamp_min(NORM_FLOOR)  # [B, 1]
    incoming = (work / norms).to(keys.dtype)
    new_queue[_slots(pointer, batch, size, queue.device)] = incoming[max(0, batch - size) :]
    return new_queue, (pointer + batch) % size
