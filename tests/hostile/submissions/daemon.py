# A double-forked daemon in its own session that keeps writing into /tmp, hoping to outlive the submission.
import os
import time


def add_one(x):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.closerange(3, 4096)
            while True:
                with open("/tmp/daemon_was_here", "w") as witness:
                    witness.write(str(time.time()))
                time.sleep(0.05)
        os._exit(0)
    os.wait()
    time.sleep(0.2)  # the daemon is running and has written its file
    return x + 1


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
