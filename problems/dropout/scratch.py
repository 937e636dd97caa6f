# Try it: dropout with your own uniform draws, in training and in evaluation. Runs after your code.
import torch

x = torch.ones(2, 4)
uniform = torch.tensor([[0.1, 0.6, 0.3, 0.9], [0.5, 0.2, 0.8, 0.4]])
print(dropout(x, 0.5, uniform))  # the kept entries are scaled by 1 / (1 - p)
print(dropout(x, 0.5, uniform, training=False))
