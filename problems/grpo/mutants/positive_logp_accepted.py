"""This is what you get when positive log-probabilities are accepted instead of refused with a ValueError (a log-probability is never above 0).

Overrides: check_loss_inputs
"""

_reference_check_loss_inputs = check_loss_inputs


def check_loss_inputs(logp_new, logp_old, logp_ref, advantages, mask, clip_eps, beta):
    def as_logp(t):
        return t.detach().clamp(max=0.0) if isinstance(t, torch.Tensor) and t.dtype.is_floating_point else t

    _reference_check_loss_inputs(as_logp(logp_new), as_logp(logp_old), as_logp(logp_ref), advantages, mask,
                                 clip_eps, beta)
