"""The soft term compares the teacher's distribution with itself, so it is always 0 and distils nothing.

Overrides: distillation_loss
Source: https://github.com/labmlai/annotated_deep_learning_paper_implementations/issues/66 (large_logits used on both sides of the KL)
"""


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = temperature
    log_p_teacher = F.log_softmax(teacher_logits.detach() / t, dim=1)
    kl = (log_p_teacher.exp() * (log_p_teacher - log_p_teacher)).sum(dim=1).mean()
    hard = F.cross_entropy(student_logits, target)
    return alpha * t * t * kl + (1 - alpha) * hard
