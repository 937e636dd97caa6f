"""This is what you get when momentum = 1 ("keep the centre") returns the centre itself, detached: the value is
right, but the new centre shares the old one's memory, so a caller who updates one changes both.

Overrides: update_center
"""

_reference_update = update_center


def update_center(center, teacher_outputs, momentum=0.9):
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_center(center, teacher_outputs)
    check_number("momentum", momentum, low=0, high=1, low_open=False)
    if momentum == 1:
        return center.detach()
    return _reference_update(center, teacher_outputs, momentum)
