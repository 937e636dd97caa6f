"""normalises the incoming keys by the bare norm, so zero keys become nan.

Overrides: enqueue
"""


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    new_queue = queue.detach().clone()
    incoming = keys.detach() / keys.detach().norm(dim=1, keepdim=True)
    new_queue[_slots(pointer, batch, size, queue.device)] = incoming[max(0, batch - size) :]
    return new_queue, (pointer + batch) % size
