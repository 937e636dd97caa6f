"""accepts only float32 and float64 queues, rejecting float16 and bfloat16.

Overrides: _check_enqueue_inputs
"""


_reference_check_enqueue_inputs = _check_enqueue_inputs


def _check_enqueue_inputs(queue, keys, pointer):
    _check_tensors(("queue", "keys"), (queue, keys), LOSS_DTYPES)
    _reference_check_enqueue_inputs(queue, keys, pointer)
