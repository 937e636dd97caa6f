"""This is what you get when the temperatures change places: the teacher divided by 0.1 and the student by 0.04.

Overrides: dino_loss
"""

_reference_loss = dino_loss


def dino_loss(student_outputs, teacher_outputs, center, student_temperature=0.1, teacher_temperature=0.04):
    return _reference_loss(student_outputs, teacher_outputs, center, teacher_temperature, student_temperature)
