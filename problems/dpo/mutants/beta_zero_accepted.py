"""This is what you get when beta = 0 is accepted: with beta = 0 every margin is 0 and the loss is ln 2 whatever the policy, so nothing is learned; beta must be > 0.

Overrides: check_dpo_inputs
"""

_reference_check_dpo_inputs = check_dpo_inputs


def check_dpo_inputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta):
    if beta == 0 and not isinstance(beta, bool):
        beta = 1.0
    _reference_check_dpo_inputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta)
