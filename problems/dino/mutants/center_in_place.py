"""This is what you get when the centre is updated in place (center.mul_(m).add_(...)): the caller's tensor changes and the result aliases it.

Overrides: update_center
"""


def update_center(center, teacher_outputs, momentum=0.9):
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_center(center, teacher_outputs)
    check_number("momentum", momentum, low=0, high=1, low_open=False)
    if center.requires_grad:
        return momentum * center.detach() + (1 - momentum) * _batch_center(teacher_outputs)
    return center.mul_(momentum).add_((1 - momentum) * _batch_center(teacher_outputs))
