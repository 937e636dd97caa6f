# Try it: the loss of predictions that agree with the target and of ones that do not, and one moving-average
# step. Runs after your code; nothing is graded.
import torch

torch.manual_seed(0)
p = torch.randn(4, 8)
print("aligned  ", byol_loss(p, 3 * p))  # 2 - 2 cos = 0 for parallel rows
print("opposite ", byol_loss(p, -p))  # 2 - 2 cos = 4
print("random   ", byol_loss(p, torch.randn(4, 8)))
print(target_update(torch.ones(3), torch.zeros(3), tau=0.9))  # target 0 keeps 0.9 of itself and takes 0.1 of online 1
