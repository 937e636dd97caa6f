# Try it: the statement's hand example. Runs after your code; nothing is graded.
import torch

x = torch.tensor([1.0, 2.0], dtype=torch.float64)
w_gate = torch.tensor([[1.0, -1.0], [0.0, 1.0]], dtype=torch.float64)  # rows are output features
w_up = torch.tensor([[2.0, 0.0], [1.0, 1.0]], dtype=torch.float64)
w_down = torch.tensor([[1.0, 1.0], [0.0, 2.0]], dtype=torch.float64)
print("gate pre-activation", x @ w_gate.T)  # [-1, 2]
print("silu of it         ", silu(x @ w_gate.T))  # [-0.268941, 1.761594]
print("swiglu_ffn         ", swiglu_ffn(x, w_gate, w_up, w_down))  # [4.746900, 10.569565]

big = torch.tensor([-1e4, -100.0, 0.0, 100.0, 1e4], requires_grad=True)  # float32
y = silu(big)
y.sum().backward()
print("silu at the extremes", y.detach())  # [-0, -0 (or -3.7e-42), 0, 100, 10000]
print("its gradient        ", big.grad)  # [0, 0, 0.5, 1, 1]: no nan

print("LLaMA 7B d_ff   ", llama_hidden_dim(4096))  # 11008
print("LLaMA 2 70B d_ff", llama_hidden_dim(8192, 4096, 1.3))  # 28672
print("LLaMA 3 8B d_ff ", llama_hidden_dim(4096, 1024, 1.3))  # 14336
