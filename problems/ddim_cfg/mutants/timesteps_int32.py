"""This is what you get when the schedule is built as int32 tensors: the contract promises int64 step indices.

Overrides: ddim_timesteps
"""


def ddim_timesteps(num_train_steps, num_sampling_steps):
    check_step_counts(num_train_steps, num_sampling_steps)
    stride = num_train_steps // num_sampling_steps
    timesteps = (torch.arange(num_sampling_steps, dtype=torch.int32) * stride).flip(0)
    prev_timesteps = torch.cat([timesteps[1:], timesteps.new_full((1,), -1)])
    return timesteps, prev_timesteps
