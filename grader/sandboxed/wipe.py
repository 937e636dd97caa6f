"""The template's wipe between children: nothing a previous child wrote may reach the next one."""

from __future__ import annotations

import os

WIPED = ("/tmp", "/dev/shm")
WIPED_MODES: dict[str, int] = {}  # each wiped directory's own mode as the sandbox made it


def wipe_tmp() -> None:
    """Nothing a previous child wrote may reach the next one (the host killed that child's whole tree first).
    The seccomp filter refuses SysV IPC, so none can exist; a template that finds any all the same retires.

    What the child left cannot make this fail: a directory with mode 000 is given its mode back before it is
    listed, a chain deeper than any recursion limit is walked with a loop, never with recursion, and /tmp
    made unreadable gets its own mode back first. A template that still finds something it cannot remove
    retires (os._exit), rather than hand it to the next learner."""
    for directory in WIPED:
        if not empty_directory(directory):
            os._exit(3)  # a template that cannot clean up must not serve again; the pool replaces it
    for kind in ("shm", "msg", "sem"):
        try:
            with open(f"/proc/sysvipc/{kind}") as table:
                if len(table.read().splitlines()) > 1:  # a header line, then one line per object
                    os._exit(3)
        except FileNotFoundError:
            pass  # a kernel without System V IPC


def remember_modes() -> None:
    for directory in WIPED:
        try:
            WIPED_MODES[directory] = os.stat(directory).st_mode & 0o7777
        except OSError:
            pass


_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def empty_directory(directory: str) -> bool:
    """Remove everything below `directory`; whether it is empty now. Never raises.

    Depth first with a loop and two descriptors at most: the names on the way down are kept in a list, and the
    way up is "..", so neither the recursion limit, nor PATH_MAX, nor the open-files limit bounds the depth.
    Symbolic links are removed, never followed."""
    if directory in WIPED_MODES:
        try:
            os.chmod(directory, WIPED_MODES[directory])
        except OSError:
            pass
    try:
        fd = os.open(directory, _DIRECTORY_FLAGS)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    names: list[str] = []  # from `directory` down to where fd is
    try:
        while True:
            subdirectory, seen = None, 0
            with os.scandir(fd) as entries:
                for entry in entries:
                    seen += 1
                    if entry.is_dir(follow_symlinks=False):
                        subdirectory = entry.name
                        break
                    os.unlink(entry.name, dir_fd=fd)
            if subdirectory is not None:
                os.chmod(subdirectory, 0o700, dir_fd=fd)  # a directory (checked above): no link to follow
                inner = os.open(subdirectory, _DIRECTORY_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = inner
                names.append(subdirectory)
            elif seen:
                continue  # entries were removed while listing: list again until a listing finds none
            elif not names:
                return True
            else:
                outer = os.open("..", _DIRECTORY_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = outer
                os.rmdir(names.pop(), dir_fd=fd)
    except Exception:  # noqa: BLE001 - whatever it is, the verdict is the same: not clean
        return False
    finally:
        os.close(fd)
