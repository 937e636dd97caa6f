"""The KL is averaged over all N * C numbers (kl_div's default 'mean'), so it is C times too small.

Overrides: distillation_loss
Source: https://github.com/yuanli2333/Teacher-free-Knowledge-Distillation/issues/41 (nn.KLDivLoss() with reduction 'mean'); https://github.com/haitongli/knowledge-distillation-pytorch/issues/2
"""


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = temperature
    kl = F.kl_div(F.log_softmax(student_logits / t, dim=1), F.softmax(teacher_logits.detach() / t, dim=1),
                  reduction="mean")
    hard = F.cross_entropy(student_logits, target)
    return alpha * t * t * kl + (1 - alpha) * hard
