"""Check README's install line for a machine without CUDA: resolved by pip (``pip install
--dry-run --report``, nothing installed), it must bring no CUDA package -- no ``nvidia-*``,
``cuda-*`` or ``triton`` -- and it says how much it downloads.

    python .ci/install_check.py            # README.md's line "without CUDA"
    python .ci/install_check.py --cuda     # the CUDA line: only the sizes, nothing must be absent

Run by ``nox -s install-check``. It needs the network (PyPI and the PyTorch CPU index). When an
index of the line cannot be reached it says so first: pip then falls back to the other indexes
(and to local wheels a machine may have), so the result is this machine's, not the line's as a
user with the network gets it. Exit status 1: the line brings CUDA packages (they are listed).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parents[1]

# The comment line before each install line in README.md's quick start names the machine.
WITHOUT_CUDA = "# without CUDA"
WITH_CUDA = "# with CUDA"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def install_lines(readme: str) -> dict[str, str]:
    """README's two install lines, ``{"cpu": ..., "cuda": ...}``: in the quick start's first
    ``bash`` block, the line after the comment that starts with ``# without CUDA`` and the line
    after the one that starts with ``# with CUDA``. Raises ``ValueError`` unless each is there
    exactly once."""
    quick = readme.split("## Quick start", 1)[-1]
    block = re.search(r"```bash\n(.*?)```", quick, flags=re.S)
    if block is None:
        raise ValueError("README.md: no bash block in the quick start")
    lines = [ln.strip() for ln in block.group(1).splitlines()]
    found: dict[str, list[str]] = {"cpu": [], "cuda": []}
    for comment, command in itertools.pairwise(lines):
        if comment.startswith(WITHOUT_CUDA):
            found["cpu"].append(command)
        elif comment.startswith(WITH_CUDA):
            found["cuda"].append(command)
    for key, commands in found.items():
        if len(commands) != 1:
            raise ValueError(
                f"README.md: the quick start has {len(commands)} install lines for {key!r} "
                f"(each after a comment starting {WITHOUT_CUDA!r} or {WITH_CUDA!r}); expected 1"
            )
    return {k: v[0] for k, v in found.items()}


def pip_install_args(line: str) -> list[str]:
    """The arguments after ``pip install`` in a shell line (``a && b && python -m pip install
    ...``). Raises ``ValueError`` unless exactly one ``pip install`` is there."""
    found = []
    for part in line.split("&&"):
        words = shlex.split(part)
        for i in range(len(words) - 1):
            is_pip = words[i] in ("pip", "pip3") or words[i].endswith("/pip")
            if is_pip and words[i + 1] == "install":
                found.append(words[i + 2 :])
    if len(found) != 1:
        raise ValueError(f"expected one 'pip install' in {line!r}, found {len(found)}")
    return found[0]


def index_urls(args: Iterable[str]) -> list[str]:
    """The ``--index-url`` and ``--extra-index-url`` values of pip arguments."""
    args = list(args)
    urls = []
    for i, a in enumerate(args):
        for flag in ("--index-url", "--extra-index-url", "-i"):
            if a == flag and i + 1 < len(args):
                urls.append(args[i + 1])
            elif a.startswith(flag + "="):
                urls.append(a.split("=", 1)[1])
    return urls


def is_cuda_package(name: str) -> bool:
    """Whether a distribution (by its normalised name) is part of a CUDA stack: NVIDIA's
    ``nvidia-*`` libraries, ``cuda-*`` (cuda-toolkit, cuda-bindings, ...) and ``triton`` (the
    GPU compiler CUDA builds of PyTorch depend on)."""
    n = re.sub(r"[-_.]+", "-", name).lower()
    return n.startswith(("nvidia-", "cuda-")) or n == "triton"


def report_packages(report: dict) -> list[tuple[str, str, str]]:
    """``(name, version, url)`` of each distribution a ``pip install --report`` would install."""
    return [
        (
            item["metadata"]["name"],
            item["metadata"]["version"],
            item.get("download_info", {}).get("url", ""),
        )
        for item in report.get("install", [])
    ]


def cuda_packages(report: dict) -> list[str]:
    """``name==version`` of each CUDA package (``is_cuda_package``) in a pip report, and torch
    itself when its version names a CUDA build (``+cu130``)."""
    bad = []
    for name, version, _ in report_packages(report):
        if is_cuda_package(name) or (name.lower() == "torch" and "+cu" in version):
            bad.append(f"{name}=={version}")
    return bad


def download_size(url: str) -> int | None:
    """Bytes behind ``url``: a local file's size, or an HTTP server's Content-Length."""
    parsed = urlparse(url)
    if parsed.scheme == "file":
        path = Path(unquote(parsed.path))
        return path.stat().st_size if path.is_file() else None
    if parsed.scheme in ("http", "https"):
        try:
            req = urllib.request.Request(url, method="HEAD")
            with urllib.request.urlopen(req, timeout=30) as r:
                length = r.headers.get("Content-Length")
                return int(length) if length else None
        except (OSError, ValueError):
            return None
    return None


def reachable(url: str) -> str | None:
    """``None`` when the index at ``url`` answers; else why not."""
    if urlparse(url).scheme not in ("http", "https"):
        return None
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/torch/", timeout=20):
            return None
    except OSError as e:
        return f"{type(e).__name__}: {e}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cuda", action="store_true", help="the CUDA line (sizes only)")
    p.add_argument("--readme", type=Path, default=ROOT / "README.md")
    args = p.parse_args(argv)
    key = "cuda" if args.cuda else "cpu"
    line = install_lines(args.readme.read_text())[key]
    pip_args = pip_install_args(line)
    print(f"README.md's install line {'with' if args.cuda else 'without'} CUDA:\n  {line}")
    unreachable = [(url, why) for url in index_urls(pip_args) if (why := reachable(url))]
    for url, why in unreachable:
        print(
            f"note: the index {url} cannot be reached from here ({why}); what follows is what "
            "pip resolves without it on this machine, not what the line gives where it answers"
        )
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "report.json")
        cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed"]
        cmd += ["--quiet", "--report", report_path, *pip_args]
        if unreachable:  # else pip retries the dead index for every package, minutes on end
            cmd[4:4] = ["--retries", "0", "--timeout", "5"]
        print("$ " + shlex.join(cmd))
        res = subprocess.run(cmd, cwd=ROOT, check=False)
        if res.returncode != 0:
            print(f"pip failed (exit status {res.returncode})")
            return res.returncode
        report = json.loads(Path(report_path).read_text())
    packages = report_packages(report)
    with ThreadPoolExecutor(8) as pool:
        sizes = list(pool.map(download_size, [url for _, _, url in packages]))
    known = [s for s in sizes if s is not None]
    rows = sorted(zip(sizes, packages), key=lambda r: -(r[0] or 0))
    print(f"{len(packages)} distributions; the largest downloads:")
    for size, (name, version, _) in rows[:8]:
        print(f"  {(size or 0) / 1e6:8.1f} MB  {name} {version}")
    print(
        f"download: {sum(known) / 1e9:.2f} GB for {len(known)} of {len(packages)} distributions "
        "(the rest: size unknown)"
    )
    if args.cuda:
        return 0
    bad = cuda_packages(report)
    if bad:
        print(f"FAIL: the line without CUDA brings {len(bad)} CUDA packages: " + ", ".join(bad))
        return 1
    torch = [v for n, v, _ in packages if n.lower() == "torch"]
    print(f"OK: no nvidia-*, cuda-* or triton package; torch {', '.join(torch) or 'not included'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
