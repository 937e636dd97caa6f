"""This is what you get when eps_uncond is detached: the contract lets gradients reach both predictions.

Overrides: classifier_free_guidance
"""


def classifier_free_guidance(eps_cond, eps_uncond, w):
    check_guidance_inputs(eps_cond, eps_uncond, w)
    return (1 + w) * eps_cond - w * eps_uncond.detach()
