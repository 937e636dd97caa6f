"""converts the pointer with int(), so 1.0 and True are accepted.

Overrides: enqueue
"""


_reference_enqueue = enqueue


def enqueue(queue, keys, pointer):
    return _reference_enqueue(queue, keys, int(pointer))
