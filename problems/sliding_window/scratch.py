# Try it: the statement's hand example. Runs after your code; nothing is graded.
import torch

print(sliding_window_mask(5, 3).int())  # each row keeps its last 3 positions, itself included
print(sliding_window_mask(4, 1).int())  # the diagonal only

padding = torch.tensor([[False, True, True, True]])  # one pad on the left
print(combine_with_padding(sliding_window_mask(4, 2), padding).int())  # row 0 has no allowed key

q = torch.zeros(1, 1, 4, 4)  # equal logits: every query averages the values its window allows
k = torch.zeros(1, 1, 4, 4)
v = torch.tensor([1.0, 2.0, 4.0, 8.0]).reshape(1, 1, 4, 1)
print(windowed_attention(q, k, v, 2).flatten())  # [1, 1.5, 3, 6]
print(windowed_attention(q, k, v, 2, key_padding=padding).flatten())  # [0, 2, 3, 6]
