"""``make test`` wall time on fresh clones of several revisions, one after the other in the same run.

Each revision is cloned beside this checkout (so ``../shared`` is the data, as in CI), with an empty pip
cache, npm cache and ``XDG_CACHE_HOME`` of its own (as on a fresh machine: nothing an earlier clone built or
derived is reused), and the user's papersift folder removed first (the suite fails if it changes that
folder). Printed per revision: the whole ``make test`` (install, lint, the suite) in seconds, pytest's own
summary line and the exit status; with ``--out`` the same as JSON lines.

    python bench/make_test_time.py 6520cb8 HEAD [--out bench/out/make-test-time.jsonl]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
_SUMMARY = re.compile(r"^=* ?(\d+ (?:passed|failed).*?) in ([\d.]+)s", re.MULTILINE)


def run(rev: str) -> dict[str, object]:
    """Clone ``rev`` beside the checkout and time ``make test`` there."""
    sha = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    where = ROOT.parent / f"make-test-{sha}"
    shutil.rmtree(where, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(where)], check=True)
    subprocess.run(["git", "checkout", "-q", sha], cwd=where, check=True)
    shutil.rmtree(Path.home() / ".local/share/papersift", ignore_errors=True)
    with tempfile.TemporaryDirectory() as caches:
        env = {
            **os.environ,
            "CI": "true",
            "PIP_CACHE_DIR": f"{caches}/pip",
            "npm_config_cache": f"{caches}/npm",
        }
        log = where.parent / f"make-test-{sha}.log"
        start = time.monotonic()
        with log.open("w") as out:
            code = subprocess.run(
                ["make", "test"], cwd=where, env=env, stdout=out, stderr=subprocess.STDOUT
            ).returncode
        seconds = time.monotonic() - start
    text = log.read_text(errors="replace")
    found = _SUMMARY.findall(text)
    return {
        "rev": sha,
        "make_test_s": round(seconds, 1),
        "pytest": found[-1][0] if found else None,
        "pytest_s": float(found[-1][1]) if found else None,
        "exit": code,
        "log": str(log),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revs", nargs="+", help="revisions to time, in this order")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    for rev in args.revs:
        row = run(rev)
        line = orjson.dumps(row)
        print(line.decode(), flush=True)
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            with args.out.open("ab") as f:
                f.write(line + b"\n")
    sys.exit(0)


if __name__ == "__main__":
    main()
