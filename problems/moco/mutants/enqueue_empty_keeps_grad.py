"""An empty batch returns queue.clone(), which still requires grad when the queue does.

Overrides: enqueue
"""

import math
import torch


def enqueue(queue: torch.Tensor, keys: torch.Tensor, pointer: int) -> tuple[torch.Tensor, int]:
    """Write the normalised keys into a copy of the ring buffer from `pointer` on; return it, new pointer."""
    _check_tensors(("queue", "keys"), (queue, keys), None)
    _check_matrix("queue", queue)
    _check_matrix("keys", keys, allow_empty_rows=True)
    if keys.shape[1] != queue.shape[1]:
        raise ValueError(f"keys rows have {keys.shape[1]} entries but queue rows have {queue.shape[1]}")
    size = queue.shape[0]
    _check_pointer(pointer, size)

    batch = keys.shape[0]
    if batch == 0:
        return queue.clone(), pointer
    new_queue = queue.detach().clone()  # [K, D]
    incoming = _normalise_rows(keys.detach())  # [B, D]
    start = pointer
    if batch > size:  # only the last K sequential writes survive; they start where write B-K would land
        start = (pointer + batch - size) % size
        incoming = incoming[batch - size :]
    slots = (start + torch.arange(incoming.shape[0], device=queue.device)) % size  # [min(B, K)]
    new_queue[slots] = incoming
    return new_queue, (pointer + batch) % size
