"""This is what you get when the queue's size K is read as queue.shape[1], as in the published code, whose
queue is stored [D, K]: here the queue is [K, D], so slots and the new pointer wrap modulo D, which is right
only when K = D.

Source: facebookresearch/moco moco/builder.py, __init__: the queue buffer is randn(dim, K)
Overrides: enqueue
"""


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[1], keys.shape[0]  # the slip: K taken from the [D, K] layout
    new_queue = queue.detach().clone()
    incoming = _normalise_rows(keys.detach())
    new_queue[_slots(pointer, batch, size, queue.device)] = incoming[max(0, batch - size) :]
    return new_queue, (pointer + batch) % size
