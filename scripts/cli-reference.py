#!/usr/bin/env python3
"""docs/cli.md's option reference, made from the binary itself: every command's usage, arguments
and options (hidden ones included: `--help-hidden`), between the markers
`<!-- cli-reference: begin -->` and `<!-- cli-reference: end -->`.

  scripts/cli-reference.py [--posekit BIN]           rewrite the section
  scripts/cli-reference.py [--posekit BIN] --check   exit 1 when it is not current (make docs-check)
"""
import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "cli.md"
BEGIN, END = "<!-- cli-reference: begin -->", "<!-- cli-reference: end -->"


def help_text(posekit, command):
    env = dict(os.environ, COLUMNS="100")
    done = subprocess.run([posekit, *command, "--help-hidden"], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"cli-reference: posekit {' '.join(command)} --help-hidden failed: {done.stderr.strip()}")
    return done.stdout


def subcommands(text):
    """Names listed under SUBCOMMANDS:, in order."""
    if "SUBCOMMANDS:" not in text:
        return []
    names = []
    for line in text.split("SUBCOMMANDS:", 1)[1].split("\n")[1:]:
        if not line.strip():
            break
        m = re.match(r"^  (\S+)", line)
        if m and not line.startswith("    "):
            names.append(m.group(1))
    return names


def reference(posekit):
    """The section: each command's USAGE, ARGUMENTS and OPTIONS, depth first."""
    out, queue = [], [[]]
    while queue:
        command = queue.pop(0)
        text = help_text(posekit, command)
        queue = [command + [name] for name in subcommands(text) if name != "help"] + queue
        if not command:
            continue
        parts = re.split(r"\n(?=(?:USAGE|ARGUMENTS|OPTIONS|SUBCOMMANDS):)", text)
        kept = [p.strip("\n") for p in parts if p.startswith(("USAGE", "ARGUMENTS", "OPTIONS"))]
        if not kept:
            continue
        out.append(f"### `posekit {' '.join(command)}`\n```text\n" + "\n\n".join(kept).rstrip() + "\n```\n")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--posekit", default=str(ROOT / ".build" / "release" / "posekit"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    doc = DOC.read_text(encoding="utf-8")
    if BEGIN not in doc or END not in doc:
        sys.exit(f"cli-reference: {DOC} has no {BEGIN} ... {END} section")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    section = (f"{BEGIN}\n<!-- made by scripts/cli-reference.py from `posekit COMMAND --help-hidden`; "
               f"make docs-check checks it is current -->\n" + reference(args.posekit) + END)
    updated = head + section + tail
    if args.check:
        if updated != doc:
            sys.exit("cli-reference: docs/cli.md's option reference is not the binary's; run scripts/cli-reference.py")
        print("cli-reference: docs/cli.md's option reference is current")
        return
    DOC.write_text(updated, encoding="utf-8")
    print(f"cli-reference: wrote {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
