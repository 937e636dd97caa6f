"""copies the queue through .view(-1), which fails on a transposed (non-contiguous) queue.

Overrides: enqueue
"""


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    new_queue = queue.detach().view(-1).clone().view(size, -1)
    incoming = _normalise_rows(keys.detach())
    new_queue[_slots(pointer, batch, size, queue.device)] = incoming[max(0, batch - size) :]
    return new_queue, (pointer + batch) % size
