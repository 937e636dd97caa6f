"""This is what you get when the student's outputs go into the log-softmax without being divided by the student temperature.

Overrides: _student_log_probabilities
"""

import torch


def _student_log_probabilities(student_outputs, student_temperature):
    return [torch.log_softmax(s, dim=-1) for s in student_outputs]
