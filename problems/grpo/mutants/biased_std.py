"""This is what you get when the group's std divides by G instead of G - 1 (the biased std, numpy's default).

Overrides: group_advantages
Source: NVIDIA/TorchFort issue #38 (advantage normalisation whose std is missing Bessel's correction)
"""


def group_advantages(rewards, group_size, eps=1e-4):
    check_rewards(rewards, group_size, eps)
    r = rewards.detach()
    if group_size == 1 or r.numel() == 0:
        return torch.zeros_like(r)
    grouped = r.reshape(-1, group_size)
    mean = grouped.mean(dim=1, keepdim=True)
    std = grouped.std(dim=1, keepdim=True, unbiased=False)
    return ((grouped - mean) / (std + eps)).reshape(-1)
