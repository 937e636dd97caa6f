"""This is what you get when any number of teacher views is accepted (3 teacher views, or 1) instead of exactly the two global crops.

Overrides: dino_loss
"""


def dino_loss(student_outputs, teacher_outputs, center, student_temperature=0.1, teacher_temperature=0.04):
    check_views("student_outputs", student_outputs, at_least=2)
    check_views("teacher_outputs", teacher_outputs, at_least=1)
    check_same_outputs(student_outputs, teacher_outputs)
    check_center(center, teacher_outputs)
    check_number("student_temperature", student_temperature, low=0)
    check_number("teacher_temperature", teacher_temperature, low=0)
    targets = _teacher_probabilities(teacher_outputs, center, teacher_temperature)
    predictions = _student_log_probabilities(student_outputs, student_temperature)
    pairs = _pairs(len(targets), len(predictions))
    return sum(_cross_entropy(targets[i], predictions[j]) for i, j in pairs) / len(pairs)
