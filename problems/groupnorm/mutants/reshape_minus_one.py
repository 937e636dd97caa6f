"""This is what you get when the groups are formed with reshape(N, G, -1): with an empty batch (N = 0) the -1 cannot be inferred and reshape raises.

Source: kornia/kornia PR #4681 (normalize's reshape(0, C, -1) raised on empty batches); taokong/group_normalization
group_norm.py (x.view(N, self.group_num, -1)); pytorch/pytorch PR #32401 ("support empty batch in group
normalization").

Overrides: _grouped
"""


def _grouped(x, num_groups):
    return x.reshape(x.shape[0], num_groups, -1)
