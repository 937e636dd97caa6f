"""returns the new pointer as a tensor instead of a Python int.

Overrides: enqueue
Source: facebookresearch/moco moco/builder.py, __init__: queue_ptr is a long tensor
"""

import torch


_reference_enqueue = enqueue


def enqueue(queue, keys, pointer):
    new_queue, new_pointer = _reference_enqueue(queue, keys, pointer)
    return new_queue, torch.tensor(new_pointer)
