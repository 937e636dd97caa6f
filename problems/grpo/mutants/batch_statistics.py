"""This is what you get when the mean and std are taken over the whole batch instead of within each prompt's group.

Overrides: group_advantages
Source: XU-YIJIE/grpo-flat issue #2 (rewards.mean(dim=0) and rewards.std(dim=0) over all group_num * batch_size rewards)
"""


def group_advantages(rewards, group_size, eps=1e-4):
    check_rewards(rewards, group_size, eps)
    r = rewards.detach()
    if group_size == 1 or r.numel() == 0:
        return torch.zeros_like(r)
    return (r - r.mean()) / (r.std() + eps)
