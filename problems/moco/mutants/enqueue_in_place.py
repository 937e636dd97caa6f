"""detaches the queue without cloning it, so the writes land in the caller's queue.

Overrides: enqueue
"""


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    new_queue = queue.detach()
    incoming = _normalise_rows(keys.detach())
    new_queue[_slots(pointer, batch, size, queue.device)] = incoming[max(0, batch - size) :]
    return new_queue, (pointer + batch) % size
