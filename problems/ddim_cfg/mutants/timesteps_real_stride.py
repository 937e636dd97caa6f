"""This is what you get when the steps are floor(i * T / S) with a real stride instead of i * (T // S): the jumps become uneven.

Overrides: ddim_timesteps
"""


def ddim_timesteps(num_train_steps, num_sampling_steps):
    check_step_counts(num_train_steps, num_sampling_steps)
    i = torch.arange(num_sampling_steps, dtype=torch.int64)
    timesteps = (i * num_train_steps // num_sampling_steps).flip(0)
    prev_timesteps = torch.cat([timesteps[1:], timesteps.new_full((1,), -1)])
    return timesteps, prev_timesteps
