"""This is what you get when the reference log-probs are not detached: a gradient flows into the frozen reference model whenever its log-probs require grad.

Source: rasbt/LLMs-from-scratch pull request #473 (the DPO notebook's reference model computed gradients; fixed with a no-grad context)

Overrides: dpo_loss
"""


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta=0.1):
    check_dpo_inputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta)
    chosen_ratio = policy_chosen_logps - ref_chosen_logps
    rejected_ratio = policy_rejected_logps - ref_rejected_logps
    losses = _neg_log_sigmoid(beta * (chosen_ratio - rejected_ratio))
    return losses.mean(), (beta * chosen_ratio).detach(), (beta * rejected_ratio).detach()
