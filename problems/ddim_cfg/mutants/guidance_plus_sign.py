"""This is what you get when the unconditional prediction is added instead of subtracted, (1 + w) eps_cond + w eps_uncond.

Overrides: classifier_free_guidance
Source: labmlai/annotated_deep_learning_paper_implementations issue #177 (its notes wrote the guided prediction as s eps_cond + (s - 1) eps_uncond)
"""


def classifier_free_guidance(eps_cond, eps_uncond, w):
    check_guidance_inputs(eps_cond, eps_uncond, w)
    return (1 + w) * eps_cond + w * eps_uncond
