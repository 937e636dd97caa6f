"""This is what you get when the pairs with i = j are kept: the student is also asked to predict the teacher on the very same crop.

Overrides: _pairs
"""


def _pairs(num_teacher, num_student):
    return [(i, j) for i in range(num_teacher) for j in range(num_student)]
