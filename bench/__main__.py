"""Run every benchmark module (or those named on the command line) and print the figures.

A module with ``ONLY_WHEN_NAMED = True`` (``scale``: minutes of a big machine) runs only when named.

Each benchmark of several runs in a process of its own (``python -m bench NAME``): a Twisted reactor runs once
per process, and several benchmarks run one.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import platform
import subprocess
import sys
from pathlib import Path


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main(argv: list[str]) -> int:
    """``python -m bench [NAME ...]``, or ``python -m bench NAME --option ...`` for one benchmark's options."""
    names = sorted(
        info.name[len("bench_"):]
        for info in pkgutil.iter_modules([str(Path(__file__).parent)])
        if info.name.startswith("bench_")
    )
    alone = "--alone" in argv  # one of several, in a process of its own: its heading is printed already
    argv = [arg for arg in argv if arg != "--alone"]
    split = next((i for i, arg in enumerate(argv) if arg.startswith("-")), len(argv))
    chosen, options = argv[:split] or names, argv[split:]
    if options and len(chosen) != 1:
        print("bench: options go with one benchmark: python -m bench NAME --option ...", file=sys.stderr)
        return 2
    unknown = [name for name in chosen if name not in names]
    if unknown:
        print(f"bench: no benchmark named {', '.join(unknown)}; known: {', '.join(names)}", file=sys.stderr)
        return 2
    modules = {name: importlib.import_module(f"bench.bench_{name}") for name in chosen}
    if not argv[:split]:  # every benchmark: those made for a big machine only when named
        modules = {name: module for name, module in modules.items() if not getattr(module, "ONLY_WHEN_NAMED", False)}
        chosen = list(modules)
    if options and not inspect.signature(modules[chosen[0]].main).parameters:
        print(f"bench: {chosen[0]} takes no options", file=sys.stderr)
        return 2
    if len(chosen) == 1:
        if not alone:
            print(f"# Python {platform.python_version()} on {platform.machine()}, {_cpu()}\n\n## {chosen[0]}",
                  flush=True)
        module = modules[chosen[0]]
        module.main(options) if options else module.main()
        return 0
    print(f"# Python {platform.python_version()} on {platform.machine()}, {_cpu()}", flush=True)
    failed = []
    for name in chosen:
        print(f"\n## {name}", flush=True)
        if subprocess.run([sys.executable, "-m", "bench", name, "--alone"]).returncode != 0:
            failed.append(name)
    if failed:
        print(f"bench: {', '.join(failed)} failed (see above)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
