"""This is what you get when the schedule's tables are kept in float32 (as buffers often are) and the coefficients taken from them: on float64 data, sqrt(abar) and sqrt(1 - abar) carry float32 rounding, about 1e-7 relative, into every sample.

Overrides: q_sample
Source: lucidrains/denoising-diffusion-pytorch, denoising_diffusion_pytorch/denoising_diffusion_pytorch.py (register_buffer casts every schedule table to float32)
"""

import torch


def q_sample(x0, t, noise, alphas_cumprod):
    check_pair(("x0", "noise"), x0, noise)
    check_table("alphas_cumprod", alphas_cumprod, x0.device, one_allowed=True)
    check_steps(t, x0.shape[0], alphas_cumprod.shape[0], x0.device)
    alpha_bar = alphas_cumprod.to(torch.float32)
    signal = _per_example(alpha_bar.sqrt(), t, x0).to(x0.dtype)
    noise_scale = _per_example((1 - alpha_bar).sqrt(), t, x0).to(x0.dtype)
    return signal * x0 + noise_scale * noise
