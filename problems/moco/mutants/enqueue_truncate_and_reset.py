"""on overflow writes what fits before the end, drops the rest and resets the pointer to 0.

Overrides: enqueue
"""


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    new_queue = queue.detach().clone()
    incoming = _normalise_rows(keys.detach())
    end = min(pointer + batch, size)
    new_queue[pointer:end] = incoming[: end - pointer]
    return new_queue, 0 if end == size else end
