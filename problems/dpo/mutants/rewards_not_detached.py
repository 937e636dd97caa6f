"""This is what you get when the returned rewards are not detached: they still carry the policy's graph.

Overrides: dpo_loss
"""


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta=0.1):
    check_dpo_inputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta)
    chosen_ratio = policy_chosen_logps - ref_chosen_logps.detach()
    rejected_ratio = policy_rejected_logps - ref_rejected_logps.detach()
    losses = _neg_log_sigmoid(beta * (chosen_ratio - rejected_ratio))
    return losses.mean(), beta * chosen_ratio, beta * rejected_ratio
