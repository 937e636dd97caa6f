"""This is what you get when the student's log-probabilities are log(softmax(.)): log 0 = -inf once a probability underflows at large outputs.

Overrides: _student_log_probabilities
"""

import torch


def _student_log_probabilities(student_outputs, student_temperature):
    return [torch.log(torch.softmax(s / student_temperature, dim=-1)) for s in student_outputs]
