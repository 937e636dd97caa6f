"""skips the finiteness check of the loss inputs.

Overrides: validate_loss_inputs, validate_momentum_inputs, validate_enqueue_inputs
"""

import torch

_reference_validate_loss_inputs = validate_loss_inputs
_reference_validate_momentum_inputs = validate_momentum_inputs
_reference_validate_enqueue_inputs = validate_enqueue_inputs


def _finite_stand_ins(*values):
    """What the supplied checks are shown: each tensor with nan and inf replaced (same dtype, shape and device),
    so every rule but finiteness still holds."""
    return [torch.nan_to_num(value) if isinstance(value, torch.Tensor) else value for value in values]


def validate_loss_inputs(query, key, queue, temperature):
    _reference_validate_loss_inputs(*_finite_stand_ins(query, key, queue), temperature)


def validate_momentum_inputs(query, key, momentum):
    _reference_validate_momentum_inputs(*_finite_stand_ins(query, key), momentum)


def validate_enqueue_inputs(queue, keys, pointer):
    _reference_validate_enqueue_inputs(*_finite_stand_ins(queue, keys), pointer)
