"""normalises the whole queue after writing, changing the old rows too.

Overrides: enqueue
"""


_reference_enqueue = enqueue


def enqueue(queue, keys, pointer):
    new_queue, new_pointer = _reference_enqueue(queue, keys, pointer)
    return _normalise_rows(new_queue), new_pointer
