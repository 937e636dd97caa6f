# Try it: the statement's hand example, then the two special cases. Runs after your code; nothing is graded.
import torch

x = torch.tensor([[[1.0, 5.0], [5.0, 1.0], [2.0, 4.0], [6.0, 8.0]]], dtype=torch.float64)  # [N=1, C=4, L=2]
weight = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
bias = torch.tensor([0.0, 0.0, 1.0, -1.0], dtype=torch.float64)
print(group_norm(x, 2, weight, bias))  # about [[-1, 1], [2, -2], [-3.0249, -0.3416], [0.7889, 4.3666]]

print(group_norm(x, 1))  # G = 1: LayerNorm over all 8 values of the sample
print(group_norm(x, 4))  # G = C: InstanceNorm, every channel on its own
print(group_norm(torch.zeros(0, 4, 3), 2).shape)  # an empty batch: torch.Size([0, 4, 3])
