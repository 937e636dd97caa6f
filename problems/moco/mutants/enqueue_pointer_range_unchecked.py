"""wraps an out-of-range pointer modulo K instead of rejecting it.

Overrides: enqueue
"""


_reference_enqueue = enqueue


def enqueue(queue, keys, pointer):
    if isinstance(pointer, int) and not isinstance(pointer, bool):
        pointer = pointer % queue.shape[0]
    return _reference_enqueue(queue, keys, pointer)
