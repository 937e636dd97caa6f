"""This is what you get when the rewards are not detached: the advantages stay on the rewards' graph, so the loss would push gradients into whatever produced the rewards.

Overrides: group_advantages
"""


def group_advantages(rewards, group_size, eps=1e-4):
    check_rewards(rewards, group_size, eps)
    r = rewards
    if group_size == 1 or r.numel() == 0:
        return r * 0
    grouped = r.reshape(-1, group_size)
    mean = grouped.mean(dim=1, keepdim=True)
    std = grouped.std(dim=1, keepdim=True)
    return ((grouped - mean) / (std + eps)).reshape(-1)
