"""This is what you get when logp_ref is not detached: the KL penalty also trains the frozen reference model.

Overrides: grpo_loss
"""


def grpo_loss(logp_new, logp_old, logp_ref, advantages, mask, clip_eps=0.2, beta=0.04):
    check_loss_inputs(logp_new, logp_old, logp_ref, advantages, mask, clip_eps, beta)
    new, old, ref = _without_padding(mask, logp_new, logp_old.detach(), logp_ref)
    objective = _surrogate(new, old, advantages.detach(), clip_eps)
    objective = objective - beta * _kl_k3(new, ref)
    return -_per_sequence_mean(objective, mask)
