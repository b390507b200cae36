"""Small filesystems for the store's fault tests: a tmpfs that fills up, a loop-mounted ext4 that can hang.

Offers ``small_tmpfs(test, mib)`` and ``loop_ext4(test, mib)`` (a folder on
a filesystem of its own, unmounted when the test ends; the test is skipped,
with the reason, where this process may not mount), ``fill(folder)`` (a
file that takes every byte left; removing it gives the room back),
``freeze(folder)`` and ``thaw(folder)`` (``fsfreeze``: every write to the
filesystem blocks until the thaw; the test's clean-up always thaws). What a
store's journal holds, as the next start would read it, is
``evolution.store.journal.held(path)``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from unittest import SkipTest

from twisted.trial import unittest


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def _mount(test: unittest.TestCase, *command: str, what: str) -> None:
    if os.geteuid() != 0:
        raise SkipTest(f"mounting {what} needs root; this test runs as uid {os.geteuid()}")
    result = _run(*command)
    if result.returncode != 0:
        raise SkipTest(f"cannot mount {what} here ({result.stderr.strip()})")


def _unmount(folder: Path) -> None:
    if _run("umount", str(folder)).returncode != 0:
        _run("umount", "-l", str(folder))  # a store process may still hold a file open: let it go when it ends


def small_tmpfs(test: unittest.TestCase, mib: int) -> Path:
    """A folder on a fresh tmpfs of ``mib`` MiB."""
    folder = Path(tempfile.mkdtemp(prefix="evolution-tmpfs-"))
    _mount(test, "mount", "-t", "tmpfs", "-o", f"size={mib}m", "tmpfs", str(folder), what=f"a {mib} MiB tmpfs")
    test.addCleanup(shutil.rmtree, folder, True)
    test.addCleanup(_unmount, folder)
    return folder


def loop_ext4(test: unittest.TestCase, mib: int) -> Path:
    """A folder on a fresh ext4 filesystem of ``mib`` MiB in a file, loop-mounted."""
    if shutil.which("mkfs.ext4") is None:
        raise SkipTest("mkfs.ext4 is not installed (Debian: e2fsprogs)")
    work = Path(tempfile.mkdtemp(prefix="evolution-ext4-"))
    test.addCleanup(shutil.rmtree, work, True)
    image, folder = work / "disk.img", work / "mnt"
    folder.mkdir()
    with open(image, "wb") as file:
        file.truncate(mib * 2**20)
    made = _run("mkfs.ext4", "-q", "-F", "-m", "0", str(image))
    if made.returncode != 0:
        raise SkipTest(f"mkfs.ext4 failed ({made.stderr.strip()})")
    _mount(test, "mount", "-o", "loop", str(image), str(folder), what="a loop device")
    test.addCleanup(_unmount, folder)
    return folder


def fill(folder: Path) -> Path:
    """A file in ``folder`` that takes all the room left on its filesystem."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        size = 1 << 20
        while size:
            try:
                os.write(fd, b"\xff" * size)
            except OSError:
                size //= 2
        os.fsync(fd)
    finally:
        os.close(fd)
    return filler


def freeze(test: unittest.TestCase, folder: Path) -> None:
    """Make every write to ``folder``'s filesystem block until ``thaw`` (the test's clean-up thaws it)."""
    if shutil.which("fsfreeze") is None:
        raise SkipTest("fsfreeze is not installed (Debian: util-linux)")
    test.addCleanup(thaw, folder)
    result = _run("fsfreeze", "--freeze", str(folder))
    if result.returncode != 0:
        raise SkipTest(f"cannot freeze {folder} ({result.stderr.strip()})")


def thaw(folder: Path) -> None:
    _run("fsfreeze", "--unfreeze", str(folder))
