"""the official code's enqueue: asserts K % B == 0 and writes one contiguous slice.

Overrides: enqueue
Source: facebookresearch/moco moco/builder.py, _dequeue_and_enqueue: assert self.K % batch_size == 0
"""


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    new_queue = queue.detach().clone()
    incoming = _normalise_rows(keys.detach())
    assert size % max(batch, 1) == 0  # for simplicity, as in the original code
    new_queue[pointer : pointer + batch] = incoming
    return new_queue, (pointer + batch) % size
