"""The validation compares dtypes but forgets devices, so tensors on two devices reach torch.

Overrides: validate_loss_inputs, validate_momentum_inputs, validate_enqueue_inputs
"""

import torch

_reference_validate_loss_inputs = validate_loss_inputs
_reference_validate_momentum_inputs = validate_momentum_inputs
_reference_validate_enqueue_inputs = validate_enqueue_inputs


def _one_device_stand_ins(*values):
    """What the supplied checks are shown: a tensor on another device than the first is replaced by zeros of its
    dtype and shape on the first one's device, so every rule but the device comparison still holds."""
    first = values[0]
    if not isinstance(first, torch.Tensor):
        return values
    return [torch.zeros_like(value, device=first.device)
            if isinstance(value, torch.Tensor) and value.device != first.device else value for value in values]


def validate_loss_inputs(query, key, queue, temperature):
    _reference_validate_loss_inputs(*_one_device_stand_ins(query, key, queue), temperature)


def validate_momentum_inputs(query, key, momentum):
    _reference_validate_momentum_inputs(*_one_device_stand_ins(query, key), momentum)


def validate_enqueue_inputs(queue, keys, pointer):
    _reference_validate_enqueue_inputs(*_one_device_stand_ins(queue, keys), pointer)
