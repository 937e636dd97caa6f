"""This is what you get when a tie counts as a wrong pair (only r_chosen > r_rejected counts): a reward model
that scores everything the same gets 0 %, below chance, and swapping the arguments does not give 1 minus the
accuracy.

Overrides: preference_accuracy
"""

import torch


def preference_accuracy(r_chosen, r_rejected):
    check_accuracy_inputs(r_chosen, r_rejected)
    with torch.no_grad():
        return float((r_chosen > r_rejected).double().mean())
