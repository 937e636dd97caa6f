"""This is what you get when beta defaults to 1.0 instead of 0.1.

Overrides: dpo_loss
"""

_reference_dpo_loss = dpo_loss


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta=1.0):
    return _reference_dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta)
