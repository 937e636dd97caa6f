# Try it: the statement's hand examples. Runs after your code; nothing is graded.
import torch

c, r, s = torch.meshgrid(torch.arange(2), torch.arange(4), torch.arange(4), indexing="ij")
images = (100 * c + 10 * r + s).unsqueeze(0).double()  # pixel (c, r, s) holds 100 c + 10 r + s
print(patchify(images, 2)[0, 1])  # [2, 102, 3, 103, 12, 112, 13, 113]

image = torch.tensor([[[[0.0, 1, 2, 3], [10, 11, 12, 13]]]])
weight = torch.tensor([[1.0, 0, 0, 0], [0, 0, 0, 1]])
pos_embed = torch.tensor([[100.0, 200], [1, 2], [3, 4]])
print(patch_embed(image, weight, torch.tensor([0.5, -0.5]), torch.tensor([7.0, 8]), pos_embed, 2))
# [[107, 208], [1.5, 12.5], [5.5, 16.5]]

tokens = torch.tensor([[[9.0], [10], [20], [30], [40]]])
kept, mask, ids_restore = random_masking(tokens, 0.5, torch.tensor([[0.6, 0.3, 0.9, 0.1]]))
print(kept.flatten(), mask, ids_restore)  # [9, 40, 20], [1, 0, 1, 0], [2, 1, 3, 0]
