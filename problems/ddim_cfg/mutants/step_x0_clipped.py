"""This is what you get when x0_hat is clipped to [-1, 1] as image pipelines do: the paper's step does not clip.

Overrides: _predicted_x0
Source: Project-MONAI/GenerativeModels issue #494 (DDIM's clip_sample clamps the predicted x0 to [-1, 1], wrong for latents)
"""


def _predicted_x0(x_t, eps, alpha_bar_t):
    return ((x_t - math.sqrt(1 - alpha_bar_t) * eps) / math.sqrt(alpha_bar_t)).clamp(-1.0, 1.0)
