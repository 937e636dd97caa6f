# add_one spins forever; scaled_sum is correct, so the next checks prove the grader carried on.
import torch


def add_one(x):
    while True:
        pass


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor


unused = torch
