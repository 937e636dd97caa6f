"""This is what you get when a group of one answer is divided by torch.std of one value, which is nan.

Overrides: group_advantages
"""


def group_advantages(rewards, group_size, eps=1e-4):
    check_rewards(rewards, group_size, eps)
    r = rewards.detach()
    if r.numel() == 0:
        return torch.zeros_like(r)
    grouped = r.reshape(-1, group_size)
    mean = grouped.mean(dim=1, keepdim=True)
    std = grouped.std(dim=1, keepdim=True)
    return ((grouped - mean) / (std + eps)).reshape(-1)
