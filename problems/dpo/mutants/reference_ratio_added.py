"""This is what you get when the reference log-ratio is added instead of subtracted: (pc - pr) + (rc - rr).

Overrides: dpo_loss
"""


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta=0.1):
    check_dpo_inputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta)
    rc, rr = ref_chosen_logps.detach(), ref_rejected_logps.detach()
    pi_logratios = policy_chosen_logps - policy_rejected_logps
    ref_logratios = rc - rr
    losses = _neg_log_sigmoid(beta * (pi_logratios + ref_logratios))
    return losses.mean(), (beta * (policy_chosen_logps - rc)).detach(), (beta * (policy_rejected_logps - rr)).detach()
