"""This is what you get when each step jumps to t - 1, DDPM's previous step, instead of the next step of the strided schedule.

Overrides: ddim_timesteps
Source: lucidrains/denoising-diffusion-pytorch issue #81 (DDIM sampling used alphas_cumprod_prev, the alpha-bar one training step back)
"""


def ddim_timesteps(num_train_steps, num_sampling_steps):
    check_step_counts(num_train_steps, num_sampling_steps)
    stride = num_train_steps // num_sampling_steps
    timesteps = (torch.arange(num_sampling_steps, dtype=torch.int64) * stride).flip(0)
    return timesteps, timesteps - 1
