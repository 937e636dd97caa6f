"""This is what you get when the per-pair losses are summed instead of averaged over the B pairs.

Overrides: dpo_loss
"""


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta=0.1):
    check_dpo_inputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta)
    chosen_ratio = policy_chosen_logps - ref_chosen_logps.detach()
    rejected_ratio = policy_rejected_logps - ref_rejected_logps.detach()
    losses = _neg_log_sigmoid(beta * (chosen_ratio - rejected_ratio))
    return losses.sum(), (beta * chosen_ratio).detach(), (beta * rejected_ratio).detach()
