"""does not detach the keys, so the returned queue requires grad.

Overrides: enqueue
"""


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    new_queue = queue.clone()
    incoming = _normalise_rows(keys)
    new_queue[_slots(pointer, batch, size, queue.device)] = incoming[max(0, batch - size) :]
    return new_queue, (pointer + batch) % size
