"""This is what you get when the momentum weighs the batch mean instead of the old centre: (1 - m) c + m * mean.

Overrides: update_center
"""


def update_center(center, teacher_outputs, momentum=0.9):
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_center(center, teacher_outputs)
    check_number("momentum", momentum, low=0, high=1, low_open=False)
    return (1 - momentum) * center.detach() + momentum * _batch_center(teacher_outputs)
