"""A process's descendants, read from /proc, and whether each is still there (Linux)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

PROC = Path("/proc")


class Process(NamedTuple):
    pid: int
    started: int  # clock ticks after boot: a pid used again by another process is told apart
    command: str


def _stat(pid: int) -> list[str] | None:
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()  # after the command's name, which may hold spaces and parentheses


def _command(pid: int) -> str:
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def descendants(root: int) -> list[Process]:
    """Every process below ``root`` now (children, their children...)."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            children.setdefault(int(stat[1]), []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            stat = _stat(child)
            if stat is not None:
                found.append(Process(child, int(stat[19]), _command(child)))
                todo.append(child)
    return found


def still_there(process: Process) -> bool:
    """The process is still running, as itself (a zombie, which has ended, does not count: once its parent has
    ended it waits for the system's first process to reap it)."""
    stat = _stat(process.pid)
    return stat is not None and int(stat[19]) == process.started and stat[0] != "Z"
