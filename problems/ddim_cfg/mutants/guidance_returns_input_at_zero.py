"""This is what you get when w = 0 returns eps_cond itself: the result must be a new tensor, not the caller's.

Overrides: classifier_free_guidance
"""


def classifier_free_guidance(eps_cond, eps_uncond, w):
    check_guidance_inputs(eps_cond, eps_uncond, w)
    if w == 0:
        return eps_cond
    return (1 + w) * eps_cond - w * eps_uncond
