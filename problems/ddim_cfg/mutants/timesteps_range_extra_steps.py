"""This is what you get when the steps are range(0, T, T // S): when S does not divide T that gives more than S steps.

Overrides: ddim_timesteps
Source: ermongroup/ddim runners/diffusion.py (skip = num_timesteps // timesteps; seq = range(0, num_timesteps, skip), one step too many for 1000 // 3)
"""


def ddim_timesteps(num_train_steps, num_sampling_steps):
    check_step_counts(num_train_steps, num_sampling_steps)
    stride = num_train_steps // num_sampling_steps
    timesteps = torch.arange(0, num_train_steps, stride, dtype=torch.int64).flip(0)
    prev_timesteps = torch.cat([timesteps[1:], timesteps.new_full((1,), -1)])
    return timesteps, prev_timesteps
