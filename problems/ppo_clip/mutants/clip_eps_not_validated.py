"""This is what you get when clip_eps is never checked: 0 or a negative clip range is accepted silently (a clip range [1.2, 0.8] clamps every ratio to 0.8), where the contract asks for a ValueError.

Overrides: check_surrogate_inputs
"""

_reference_check_surrogate_inputs = check_surrogate_inputs


def check_surrogate_inputs(logp_new, logp_old, advantages, clip_eps, mask):
    _reference_check_surrogate_inputs(logp_new, logp_old, advantages, 0.2, mask)
