# Try it: the statement's hand examples. Runs after your code; nothing is graded.
import torch

x0 = torch.tensor([[1.0, 0.0], [2.0, 2.0]])
x1 = torch.tensor([[3.0, 4.0], [0.0, -2.0]])
t = torch.tensor([0.25, 0.5])
x_t, u = conditional_path(x0, x1, t)
print(x_t)  # [[1.5, 1.0], [1.0, 0.0]]
print(u)  # [[2, 4], [-2, -4]]

v_pred = torch.tensor([[2.0, 3.0], [0.0, 0.0]], requires_grad=True)
loss = cfm_loss(v_pred, x0, x1)
print(loss)  # (1 + 20) / 2 = 10.5
loss.backward()
print(v_pred.grad)  # 2 (v_pred - u) / N = [[0, -1], [2, 4]]

trajectory = euler_sample(torch.tensor([[1.0, 0.0], [0.0, 2.0]]), torch.tensor([[2.0, -2.0]]), 1.0, 2)
print(trajectory)  # [[[1, 0], [0, 2]], [[1.5, -1], [1, 0]], [[2.5, -2], [2, -1]]]
