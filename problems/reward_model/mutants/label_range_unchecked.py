"""This is what you get when label values outside [0, 1] are accepted: a label of 1.5 gives a negative weight to
the swapped pair and a loss that can go below zero.

Overrides: check_preference_inputs
"""

_reference_check_preference_inputs = check_preference_inputs


def check_preference_inputs(r_chosen, r_rejected, margin=None, label=None):
    stand_in = label
    if label is not None and hasattr(label, "clamp") and label.dtype.is_floating_point:
        stand_in = label.detach().clamp(0, 1)
    _reference_check_preference_inputs(r_chosen, r_rejected, margin, stand_in)
