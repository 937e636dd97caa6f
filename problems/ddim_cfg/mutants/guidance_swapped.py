"""This is what you get when the conditional and unconditional predictions are swapped (the halves of a batched forward pass taken in the wrong order): guidance pushes away from the condition.

Overrides: classifier_free_guidance
"""


def classifier_free_guidance(eps_cond, eps_uncond, w):
    check_guidance_inputs(eps_cond, eps_uncond, w)
    return (1 + w) * eps_uncond - w * eps_cond
