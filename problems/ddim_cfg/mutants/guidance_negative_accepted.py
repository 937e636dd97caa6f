"""This is what you get when a negative guidance weight is accepted: the contract refuses w < 0 with ValueError.

Overrides: check_guidance_inputs
"""

_reference_check_guidance_inputs = check_guidance_inputs


def check_guidance_inputs(eps_cond, eps_uncond, w):
    if isinstance(w, int | float) and not isinstance(w, bool) and math.isfinite(w) and w < 0:
        w = 0.0
    _reference_check_guidance_inputs(eps_cond, eps_uncond, w)
