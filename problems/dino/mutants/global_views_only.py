"""This is what you get when only the two global student views are used: the local crops never enter the loss.

Overrides: _pairs
"""


def _pairs(num_teacher, num_student):
    return [(i, j) for i in range(num_teacher) for j in range(min(num_student, 2)) if i != j]
