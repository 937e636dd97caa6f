"""validates shapes with assert, which raises AssertionError instead of ValueError.

Overrides: _check_loss_inputs
"""


def _check_loss_inputs(query, key, queue, temperature):
    _check_temperature(temperature)
    _check_tensors(("query", "key", "queue"), (query, key, queue), LOSS_DTYPES)
    _check_matrix("query", query)
    _check_matrix("key", key)
    _check_matrix("queue", queue)
    assert key.shape == query.shape, "key and query shapes differ"
    if queue.shape[1] != query.shape[1]:
        raise ValueError(f"queue rows have {queue.shape[1]} entries but query rows have {query.shape[1]}")
