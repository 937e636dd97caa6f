"""validates shapes with assert, which raises AssertionError instead of ValueError.

Overrides: validate_loss_inputs
"""

import torch

from helpers import check_matrix, check_scalar, check_tensors


def validate_loss_inputs(query, key, queue, temperature):
    if check_scalar("temperature", temperature) <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    check_tensors(("query", "key", "queue"), (query, key, queue), (torch.float32, torch.float64))
    for name, tensor in (("query", query), ("key", key), ("queue", queue)):
        check_matrix(name, tensor)
    assert key.shape == query.shape, "key and query shapes differ"
    if queue.shape[1] != query.shape[1]:
        raise ValueError(f"queue rows have {queue.shape[1]} entries, query rows have {query.shape[1]}")
