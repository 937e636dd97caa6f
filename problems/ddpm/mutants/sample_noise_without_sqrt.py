"""This is what you get when the noise is scaled by 1 - abar instead of sqrt(1 - abar): the sample is far too clean.

Overrides: q_sample
Source: labmlai/annotated_deep_learning_paper_implementations issue #152 (sqrt_1m_alpha_bar defined without the square root)
"""


def q_sample(x0, t, noise, alphas_cumprod):
    check_pair(("x0", "noise"), x0, noise)
    check_table("alphas_cumprod", alphas_cumprod, x0.device, one_allowed=True)
    check_steps(t, x0.shape[0], alphas_cumprod.shape[0], x0.device)
    alpha_bar = alphas_cumprod.double()
    signal = _per_example(alpha_bar.sqrt(), t, x0).to(x0.dtype)
    noise_scale = _per_example(1 - alpha_bar, t, x0).to(x0.dtype)
    return signal * x0 + noise_scale * noise
