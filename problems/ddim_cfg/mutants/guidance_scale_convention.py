"""This is what you get when w is used as the other convention's scale, eps_uncond + w (eps_cond - eps_uncond): the paper's w = 0 then returns the unconditional prediction.

Overrides: classifier_free_guidance
Source: lucidrains/denoising-diffusion-pytorch issue #207 (null_logits + (logits - null_logits) * cond_scale: "my scale starts at 1, theirs at 0")
"""


def classifier_free_guidance(eps_cond, eps_uncond, w):
    check_guidance_inputs(eps_cond, eps_uncond, w)
    return eps_uncond + w * (eps_cond - eps_uncond)
