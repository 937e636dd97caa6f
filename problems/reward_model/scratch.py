# Try it: the statement's hand examples. Runs after your code; nothing is graded.
import math

import torch

r_chosen = torch.tensor([math.log(3.0), 2.0], dtype=torch.float64, requires_grad=True)
r_rejected = torch.tensor([0.0, 2.0], dtype=torch.float64, requires_grad=True)
loss = preference_loss(r_chosen, r_rejected)
loss.backward()
print("loss          ", loss.item())  # 0.490415: the mean of ln(4/3) and ln 2
print("d/d r_chosen  ", r_chosen.grad)  # [-0.125, -0.25]: -(1 - sigmoid(z)) / 2
print("d/d r_rejected", r_rejected.grad)  # [0.125, 0.25]: the opposite

margin = torch.tensor([math.log(3.0), 0.0], dtype=torch.float64)
print("with a margin ", preference_loss(r_chosen.detach() + margin, r_rejected.detach(), margin).item())  # 0.490415
print("a tie label   ", preference_loss(r_chosen.detach(), r_rejected.detach(),
                                        label=torch.tensor([0.5, 0.5], dtype=torch.float64)).item())  # 0.765068

far = torch.tensor([-1e4, 1e4], requires_grad=True)  # float32, |z| = 1e4
wide = preference_loss(far, torch.zeros(2))
wide.backward()
print("at z = -1e4, 1e4", wide.item(), far.grad)  # 5000.0 (= (1e4 + 0) / 2), grad [-0.5, 0]: no inf, no nan

print("accuracy      ", preference_accuracy(torch.tensor([2.0, 1, 0, 3]), torch.tensor([1.0, 1, 1, -1])))  # 0.625
print("ranking loss  ", ranking_loss(torch.tensor([[1.0, 3.0, 2.0]]), torch.tensor([[1, 2, 0]])).item())  # 0.251151
