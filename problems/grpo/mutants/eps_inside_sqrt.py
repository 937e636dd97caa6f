"""This is what you get when eps is added to the variance under the square root instead of to the std.

Overrides: group_advantages
"""


def group_advantages(rewards, group_size, eps=1e-4):
    check_rewards(rewards, group_size, eps)
    r = rewards.detach()
    if group_size == 1 or r.numel() == 0:
        return torch.zeros_like(r)
    grouped = r.reshape(-1, group_size)
    mean = grouped.mean(dim=1, keepdim=True)
    var = grouped.var(dim=1, keepdim=True)
    return ((grouped - mean) / torch.sqrt(var + eps)).reshape(-1)
