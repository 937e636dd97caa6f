"""This is what you get when the noise's standard deviation is sqrt(1 - abar) * x0 instead of sqrt(1 - abar).

Overrides: q_sample
Source: blt2114/twisted_diffusion_sampler issue #3 (q_sample's scale was sqrt_one_minus_alphas_cumprod[t] * x_start)
"""


def q_sample(x0, t, noise, alphas_cumprod):
    check_pair(("x0", "noise"), x0, noise)
    check_table("alphas_cumprod", alphas_cumprod, x0.device, one_allowed=True)
    check_steps(t, x0.shape[0], alphas_cumprod.shape[0], x0.device)
    alpha_bar = alphas_cumprod.double()
    signal = _per_example(alpha_bar.sqrt(), t, x0).to(x0.dtype)
    noise_scale = _per_example((1 - alpha_bar).sqrt(), t, x0).to(x0.dtype)
    return signal * x0 + noise_scale * x0 * noise
