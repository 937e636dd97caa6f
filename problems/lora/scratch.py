# Try it: a LoRA layer whose B starts at zero, then with B set, and the merged weight. Runs after your code.
import torch

torch.manual_seed(0)
x = torch.randn(2, 4)
weight, bias = torch.randn(3, 4), torch.zeros(3)
lora_a = torch.randn(2, 4)  # rank r = 2
lora_b = torch.zeros(3, 2)

print(lora_forward(x, weight, bias, lora_a, lora_b, alpha=4.0))  # equals x @ weight.T + bias while B is 0
lora_b = torch.ones(3, 2)
print(lora_forward(x, weight, bias, lora_a, lora_b, alpha=4.0))
print(x @ merge_lora(weight, lora_a, lora_b, alpha=4.0).T + bias)  # the same numbers from the merged weight
