"""This is what you get when a tie counts as a correct pair (r_chosen >= r_rejected, or an argmax over [chosen,
rejected] that picks the first on a tie): a reward model that scores everything the same reaches 100 %.

Overrides: preference_accuracy
Source: huggingface/trl pull request #1012 (trl/trainer/utils.py compute_accuracy: equal chosen and rejected scores count as correct; the PR added a warning and kept the count)
"""

import torch


def preference_accuracy(r_chosen, r_rejected):
    check_accuracy_inputs(r_chosen, r_rejected)
    with torch.no_grad():
        return float((r_chosen >= r_rejected).double().mean())
