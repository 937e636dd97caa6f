# Try it: the loss for two examples as the temperature grows. Runs after your code; nothing is graded.
import torch

student = torch.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 0.0]])
teacher = torch.tensor([[3.0, 1.0, -2.0], [0.5, 2.0, 0.0]])
target = torch.tensor([0, 1])

for temperature in (1.0, 2.0, 4.0):
    print(temperature, distillation_loss(student, teacher, target, temperature, alpha=0.5))
