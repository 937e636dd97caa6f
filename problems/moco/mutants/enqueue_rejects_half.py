"""accepts only float32 and float64 queues, rejecting float16 and bfloat16.

Overrides: validate_enqueue_inputs
"""

import torch

from helpers import check_tensors

_reference_validate_enqueue_inputs = validate_enqueue_inputs


def validate_enqueue_inputs(queue, keys, pointer):
    check_tensors(("queue", "keys"), (queue, keys), (torch.float32, torch.float64))
    _reference_validate_enqueue_inputs(queue, keys, pointer)
