"""returns the input queue itself when the batch is empty.

Overrides: enqueue
"""


_reference_enqueue = enqueue


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    if keys.shape[0] == 0:
        return queue, pointer
    return _reference_enqueue(queue, keys, pointer)
