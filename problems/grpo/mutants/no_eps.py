"""This is what you get when the deviation is divided by the std alone: a group of equal rewards gives 0 / 0 = nan.

Overrides: group_advantages
"""


def group_advantages(rewards, group_size, eps=1e-4):
    check_rewards(rewards, group_size, eps)
    r = rewards.detach()
    if group_size == 1 or r.numel() == 0:
        return torch.zeros_like(r)
    grouped = r.reshape(-1, group_size)
    mean = grouped.mean(dim=1, keepdim=True)
    std = grouped.std(dim=1, keepdim=True)
    return ((grouped - mean) / std).reshape(-1)
