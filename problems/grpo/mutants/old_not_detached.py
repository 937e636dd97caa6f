"""This is what you get when logp_old is not detached: gradient flows into the old policy's log-probabilities, and when they are the same tensor as logp_new the ratio's gradient cancels to 0.

Overrides: grpo_loss
"""


def grpo_loss(logp_new, logp_old, logp_ref, advantages, mask, clip_eps=0.2, beta=0.04):
    check_loss_inputs(logp_new, logp_old, logp_ref, advantages, mask, clip_eps, beta)
    new, old, ref = _without_padding(mask, logp_new, logp_old, logp_ref.detach())
    objective = _surrogate(new, old, advantages.detach(), clip_eps)
    objective = objective - beta * _kl_k3(new, ref)
    return -_per_sequence_mean(objective, mask)
