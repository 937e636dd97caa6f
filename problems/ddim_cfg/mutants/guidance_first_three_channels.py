"""This is what you get when guidance is applied to the first three channels only (dimension 1) and the others keep eps_cond.

Overrides: classifier_free_guidance
Source: facebookresearch/DiT issue #41 (forward_with_cfg guides only the first 3 of the 4 latent channels, a leftover from GLIDE's RGB)
"""


def classifier_free_guidance(eps_cond, eps_uncond, w):
    check_guidance_inputs(eps_cond, eps_uncond, w)
    guided = (1 + w) * eps_cond - w * eps_uncond
    if eps_cond.dim() >= 2 and eps_cond.shape[1] > 3:
        guided = torch.cat([guided[:, :3], eps_cond[:, 3:]], dim=1)
    return guided
