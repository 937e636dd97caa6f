# Try it: the statement's hand example. Runs after your code; nothing is graded.
import torch

B = -8.0  # <s>, a, b, </s>: rows are the previous token, columns the next
table = torch.tensor([[B, -0.5, -1.0, -2.0],
                      [B, -2.0, -1.5, -1.75],
                      [B, -1.0, -2.0, -0.25],
                      [B, B, B, B]], dtype=torch.float64)
print("beam 2    ", beam_search(table, 0, 3, 2, 3))  # ([2, 3, -1], -1.25): "b </s>"
print("greedy    ", beam_search(table, 0, 3, 1, 3))  # ([1, 2, 3], -2.25): "a b </s>"
print("max_len 1 ", beam_search(table, 0, 3, 2, 1))  # ([1], -0.5): nothing finished, "a" unfinished
print("alpha 1   ", beam_search(table, 0, 3, 2, 3, alpha=1.0))  # the same sequence, score -1.25 / (7/6)
