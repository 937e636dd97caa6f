"""This is what you get when ppo_loss does not check that every action lies in [0, A): an out-of-range index must raise ValueError, not crash inside gather or pick a wrong entry.

Overrides: check_ppo_inputs
"""

_reference_check_ppo_inputs = check_ppo_inputs


def check_ppo_inputs(logits, actions, logp_old, advantages, values, old_values, returns, mask, clip_eps,
                     vf_clip_eps, vf_coef, ent_coef):
    import torch
    if isinstance(actions, torch.Tensor) and actions.dtype == torch.int64 and isinstance(logits, torch.Tensor) \
            and logits.dim() >= 1 and logits.shape[-1] >= 1:
        actions = actions.clamp(0, logits.shape[-1] - 1)
    _reference_check_ppo_inputs(logits, actions, logp_old, advantages, values, old_values, returns, mask, clip_eps,
                                vf_clip_eps, vf_coef, ent_coef)
