"""This is what you get when chosen and rejected are swapped in the margin, (pr - rr) - (pc - rc): the loss then trains the policy towards the rejected answers.

Overrides: dpo_loss
"""


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta=0.1):
    check_dpo_inputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta)
    chosen_ratio = policy_chosen_logps - ref_chosen_logps.detach()
    rejected_ratio = policy_rejected_logps - ref_rejected_logps.detach()
    losses = _neg_log_sigmoid(beta * (rejected_ratio - chosen_ratio))
    return losses.mean(), (beta * chosen_ratio).detach(), (beta * rejected_ratio).detach()
