"""This is what you get when the rewards are reshaped to [G, B] instead of [B, G]: every group mixes answers to different prompts.

Overrides: group_advantages
"""


def group_advantages(rewards, group_size, eps=1e-4):
    check_rewards(rewards, group_size, eps)
    r = rewards.detach()
    if group_size == 1 or r.numel() == 0:
        return torch.zeros_like(r)
    grouped = r.reshape(group_size, -1)  # [G, B]: entry g*B + b, not b*G + g
    mean = grouped.mean(dim=0, keepdim=True)
    std = grouped.std(dim=0, keepdim=True)
    return ((grouped - mean) / (std + eps)).reshape(-1)
