"""This is what you get when the accuracy is returned as a 0-d tensor (the .mean() itself) instead of a Python
float.

Overrides: preference_accuracy
"""

import torch


def preference_accuracy(r_chosen, r_rejected):
    check_accuracy_inputs(r_chosen, r_rejected)
    with torch.no_grad():
        return ((r_chosen > r_rejected).double() + 0.5 * (r_chosen == r_rejected).double()).mean()
