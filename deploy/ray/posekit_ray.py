#!/usr/bin/env python3
"""Runs `posekit pose` (or `posekit actions`) over an input list on a Ray cluster, one task per shard.

    python3 deploy/ray/posekit_ray.py --inputs-from list.txt --output-dir poses/ --shards 8
    python3 deploy/ray/posekit_ray.py --address HOST:6379 --command actions \\
        --inputs-from list.txt --output-dir actions/ --shards 8 -- --input-size 353

Task I of N runs `posekit COMMAND --inputs-from - --shard I/N --output-dir DIR [OPTIONS after --]`
on a Ray worker, from the driver's working directory (so relative paths mean the same there), with
the list's bytes on its standard input. PoseKit does the batch work: shard I/N takes inputs I,
I+N, ... of the list, each output file in DIR is complete or absent, and a rerun skips the inputs
already done. Ray does the rest: scheduling (`--cpus-per-task` CPUs per task, also passed to
posekit as `--threads`) and retries (`--max-retries`): a task whose posekit was killed, or some
of whose inputs failed, is run again, and the new attempt resumes where the last one stopped.

Before running posekit each task checks, and otherwise fails without a retry, with a message that
names the cause: that the worker sees the output directory the driver created (it must be shared
by every worker), that the list still has the checksum the driver read (a list that changed
between tasks would split differently), and that the posekit executable is there (`--posekit`,
default `posekit` on the worker's PATH). An option posekit rejects (its exit 2) is not retried either.

The driver and each task read the list with posekit's own limits (a regular file; at most
1,000,000 entries, 4096 bytes a line, 256 MiB of paths, no NUL byte), in 1 MiB chunks, so a wrong
--inputs-from (/dev/urandom, a huge file) is refused at once with one line. Ray is imported only
once the command line and the list are checked: `--help` and those errors need no Ray installed.

Each attempt reports its posekit process while it runs, in the driver's run directory (removed at
the end): DIR/.posekit-ray-RUN/shard-I.attempt-K.pid holds "PID HOST". At the end the driver
removes the temporary files of posekit processes that were killed in this run, prints one line
per failed input and a summary (shards done, failed, retried), and exits 1 when any shard
failed after its retries (0 when all are done, 2 for a bad command line or no cluster).
"""

import argparse
import glob
import hashlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import stat
import time

ray = None  # imported in main(), so --help and list errors need no Ray (see import_ray)

PROG = "posekit-ray"

# posekit's own limits for --inputs-from (Sources/App/Limits.swift), applied while the list is read.
LIST_ENTRIES = 1_000_000
LIST_LINE_BYTES = 4096
LIST_PATH_BYTES = 256 << 20
# The whole file: the paths, a newline per entry and as much again of blank lines and spaces.
LIST_FILE_BYTES = 2 * (LIST_PATH_BYTES + LIST_ENTRIES)
LIST_CHUNK = 1 << 20
TOKEN = "token"  # the marker file in the run directory: tasks check they see it


class ShardFailed(Exception):
    """posekit was killed or failed on some inputs: Ray retries the task (`retry_exceptions`)."""

    def __init__(self, message, failed_inputs=()):
        super().__init__(message, tuple(failed_inputs))

    def __str__(self):
        return self.args[0]

    @property
    def failed_inputs(self):
        return self.args[1]


class SetupError(Exception):
    """The worker cannot run the shard as asked; a retry would not help, so none is made."""


class ListError(Exception):
    """The input list breaks one of posekit's limits, or is not a regular file."""


def read_input_list(path):
    """The bytes of the input list at `path` and its number of entries, read in 1 MiB chunks and
    refused as soon as it breaks posekit's limits (a NUL byte, a line longer than 4096 bytes, more
    than 1,000,000 entries or 256 MiB of paths): `/dev/urandom` or a huge file is refused after
    at most one chunk past the limit, never read whole. Only a regular file: every worker reads it too."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # never waits for a FIFO's writer
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ListError(f"{path}: not a regular file (the workers read the list too; write it to a shared file)")
        chunks, size, entries, path_bytes, line_number, partial = [], 0, 0, 0, 0, b""
        while True:
            chunk = f.read(LIST_CHUNK)
            size += len(chunk)
            if size > LIST_FILE_BYTES:
                raise ListError(f"{path}: more than {LIST_FILE_BYTES >> 20} MiB; split the list")
            chunks.append(chunk)
            lines = (partial + chunk).split(b"\n")
            partial = lines.pop() if chunk else b""
            for line in lines + ([partial] if not chunk and partial else []):
                line_number += 1
                if b"\0" in line:
                    raise ListError(f"{path}: line {line_number} holds a NUL byte; give one path per line "
                                    f"(not find -print0 output)")
                if len(line) > LIST_LINE_BYTES:
                    raise ListError(f"{path}: line {line_number} is longer than {LIST_LINE_BYTES} bytes")
                entry = line.strip(b" \t\r")
                if entry:
                    entries += 1
                    path_bytes += len(entry)
                    if entries > LIST_ENTRIES or path_bytes > LIST_PATH_BYTES:
                        raise ListError(f"{path}: more than {LIST_ENTRIES} inputs or {LIST_PATH_BYTES >> 20} MiB "
                                        f"of paths; split the list")
            if len(partial) > LIST_LINE_BYTES:
                raise ListError(f"{path}: line {line_number + 1} is longer than {LIST_LINE_BYTES} bytes")
            if not chunk:
                return b"".join(chunks), entries


def import_ray():
    """Imports Ray (the driver's one dependency) into the module's `ray`; exits 2 with one line if it is missing."""
    global ray
    try:
        import ray as ray_module
    except ImportError:
        print(f"{PROG}: error: Ray is not installed here (pip install -r deploy/ray/requirements.txt)", file=sys.stderr)
        sys.exit(2)
    ray = ray_module


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def find_posekit(name, cwd):
    """The posekit executable `name` resolves to on this machine (a path, or a name on PATH), or None."""
    if os.sep in name:
        path = os.path.join(cwd, name)
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return shutil.which(name)


def claim_attempt(run_dir, shard):
    """Numbers this attempt of `shard` 1, 2, ...: the first `shard-I.attempt-K` this call creates."""
    attempt = 1
    while True:
        try:
            os.close(os.open(os.path.join(run_dir, f"shard-{shard}.attempt-{attempt}"), os.O_CREAT | os.O_EXCL))
            return attempt
        except FileExistsError:
            attempt += 1


def report_pid(run_dir, shard, attempt, pid, node):
    """Writes shard-I.attempt-K.pid ("PID HOST") atomically, so a reader never sees half of it."""
    path = os.path.join(run_dir, f"shard-{shard}.attempt-{attempt}.pid")
    with open(path + ".tmp", "w") as f:
        f.write(f"{pid} {node}\n")
    os.replace(path + ".tmp", path)


def failure(returncode, stderr, pid, node):
    """The exception for a posekit that exited `returncode` with `stderr`."""
    lines = stderr.splitlines()
    last = lines[-1] if lines else "(no message)"
    if returncode < 0:
        return ShardFailed(f"posekit (pid {pid} on {node}) was killed by {signal.Signals(-returncode).name}")
    if returncode == 2:  # a usage error (`Error: why`, then the usage): the same command would fail again
        why = next((line for line in lines if line.startswith("Error:")), last)
        return SetupError(f"posekit rejected the command on {node}: {why}")
    # Per-input failures: `posekit: error: INPUT: why` lines, then `posekit: K of M input(s) failed; ...`.
    if lines and re.match(r"posekit: \d+ of \d+ input\(s\) failed", last):
        failed = [line[len("posekit: error: "):] for line in lines if line.startswith("posekit: error: ")]
        return ShardFailed(f"{len(failed)} input(s) failed", failed)
    return ShardFailed(f"posekit exited {returncode} on {node}: {last}")


def run_shard(shard, job):
    """Ray task: checks this worker can run share `shard` of the job, then runs posekit on it."""
    node = socket.gethostname()
    run_dir = job["run_dir"]
    try:
        with open(os.path.join(run_dir, TOKEN)) as f:
            seen = f.read()
    except OSError:
        seen = None
    if seen != job["token"]:
        raise SetupError(
            f"the output directory {job['output_dir']} is not shared with {node}: the driver's marker "
            f"{run_dir}/{TOKEN} is not there (every worker must see the same directory, e.g. a shared volume)")
    try:
        data, _ = read_input_list(job["list"])
    except OSError as error:
        raise SetupError(f"cannot read the input list {job['list']} on {node}: {error.strerror}") from None
    except ListError as error:
        raise SetupError(f"on {node}: {error}") from None
    if sha256(data) != job["list_sha256"]:
        raise SetupError(
            f"the input list {job['list']} changed after the driver read it (sha256 {job['list_sha256'][:12]}... "
            f"now {sha256(data)[:12]}...): shards would split different lists; rerun with the final list "
            f"(finished outputs are kept)")
    if not os.path.isdir(job["cwd"]):
        raise SetupError(f"the driver's directory {job['cwd']} is not on {node} (relative paths are taken from it)")
    posekit = find_posekit(job["posekit"], job["cwd"])
    if posekit is None:
        raise SetupError(f"posekit not found on {node}: '{job['posekit']}' (install it there, or pass --posekit PATH)")

    attempt = claim_attempt(run_dir, shard)
    command = [posekit, job["command"], "--inputs-from", "-", "--shard", f"{shard}/{job['shards']}",
               "--output-dir", job["output_dir"], *job["posekit_args"]]
    # The verified bytes go to posekit on stdin: a list changed after the check cannot reach it.
    process = subprocess.Popen(command, cwd=job["cwd"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    report_pid(run_dir, shard, attempt, process.pid, node)
    _, stderr = process.communicate(data)
    stderr = stderr.decode(errors="replace")
    for line in stderr.splitlines():
        print(f"shard {shard}/{job['shards']} attempt {attempt}: {line}", file=sys.stderr)
    if process.returncode != 0:
        raise failure(process.returncode, stderr, process.pid, node)
    return {"shard": shard, "attempt": attempt, "node": node}


def temporary_files(directory):
    """posekit's in-progress outputs in `directory` (`.NAME.jsonl.RANDOM.tmp`, see OutputFile)."""
    return set(glob.glob(os.path.join(glob.escape(directory), ".*.tmp")))


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog=PROG, description="Run posekit over an input list on a Ray cluster, one task per shard.",
        epilog="Options after -- go to posekit, e.g. -- --model mobilenet050 --input-size 353.")
    parser.add_argument("--inputs-from", required=True, metavar="LIST",
                        help="input paths, one a line (relative ones from this directory), readable by every worker")
    parser.add_argument("--output-dir", required=True, metavar="DIR",
                        help="where posekit writes DIR/NAME.jsonl per input; every worker must see it")
    parser.add_argument("--shards", required=True, type=int, metavar="N", help="number of tasks (1...100000)")
    parser.add_argument("--command", choices=["pose", "actions"], default="pose", help="default: pose")
    parser.add_argument("--posekit", default=os.environ.get("POSEKIT", "posekit"), metavar="PATH",
                        help="posekit on the workers: a path (relative: from this directory) or a name on "
                             "their PATH (default: $POSEKIT, else posekit)")
    parser.add_argument("--address", default=os.environ.get("RAY_ADDRESS", "auto"),
                        help="Ray cluster HOST:PORT (default: $RAY_ADDRESS, else auto: the one started on this machine)")
    parser.add_argument("--max-retries", type=int, default=3, metavar="R",
                        help="Ray retries per task (default 3): attempts after a kill or failed inputs")
    parser.add_argument("--cpus-per-task", type=int, default=1, metavar="C",
                        help="CPUs Ray reserves per task, also posekit's --threads (default 1)")
    parser.add_argument("posekit_args", nargs="*", metavar="-- OPTION", help="posekit options")
    args = parser.parse_args(argv)
    if not 1 <= args.shards <= 100_000:
        parser.error(f"--shards must be within 1...100000, got {args.shards}")
    if args.max_retries < 0 or args.cpus_per_task < 1:
        parser.error("--max-retries must be 0 or more and --cpus-per-task 1 or more")
    return args


def main(argv=None):
    args = parse_arguments(argv)
    cwd = os.getcwd()
    list_path = os.path.abspath(args.inputs_from)
    output_dir = os.path.abspath(args.output_dir)
    try:
        data, inputs = read_input_list(list_path)
    except OSError as error:
        sys.exit(f"{PROG}: error: {list_path}: {error.strerror}")
    except ListError as error:
        sys.exit(f"{PROG}: error: {error}")
    if inputs == 0:
        sys.exit(f"{PROG}: error: {list_path} lists no input")
    import_ray()
    posekit_args = list(args.posekit_args)
    if "--threads" not in posekit_args:
        posekit_args += ["--threads", str(args.cpus_per_task)]

    try:
        if ":" in args.address and "://" not in args.address:  # HOST:PORT: fail in seconds, not after Ray's minutes of retries
            host, port = args.address.rsplit(":", 1)
            socket.create_connection((host, int(port)), timeout=10).close()
        ray.init(address=args.address, logging_level="WARNING")
    except (OSError, RuntimeError, ValueError) as error:  # ConnectionError is an OSError
        print(f"{PROG}: error: no Ray cluster at {args.address} ({error}); start one with `ray start --head` "
              f"or pass --address HOST:PORT", file=sys.stderr)
        return 2
    try:
        os.makedirs(output_dir, exist_ok=True)
    except OSError as error:
        sys.exit(f"{PROG}: error: cannot create --output-dir {output_dir}: {error.strerror}")

    # The run directory marks the output directory as the driver's (tasks check they see it) and
    # collects each attempt's pid; it and this run's stale temporary files go at the end.
    run_dir = os.path.join(output_dir, f".posekit-ray-{secrets.token_hex(6)}")
    os.mkdir(run_dir)
    token = secrets.token_hex(16)
    with open(os.path.join(run_dir, TOKEN), "w") as f:
        f.write(token)
    earlier_temporaries = temporary_files(output_dir)
    job = {"command": args.command, "posekit": args.posekit, "posekit_args": posekit_args, "cwd": cwd,
           "list": list_path, "list_sha256": sha256(data), "output_dir": output_dir, "shards": args.shards,
           "run_dir": run_dir, "token": token}
    task = ray.remote(run_shard).options(num_cpus=args.cpus_per_task, max_retries=args.max_retries,
                             retry_exceptions=[ShardFailed])
    print(f"{PROG}: posekit {args.command} over {inputs} input(s) of {list_path} in {args.shards} shard(s), "
          f"{args.cpus_per_task} CPU(s) each, up to {args.max_retries} retries; outputs in {output_dir}",
          file=sys.stderr)
    start = time.monotonic()
    pending = {task.remote(i, job): i for i in range(args.shards)}
    done, failed = [], {}
    settled = False
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            shard = pending.pop(ready[0])
            try:
                result = ray.get(ready[0])
                done.append(shard)
                print(f"{PROG}: shard {shard}/{args.shards} done on {result['node']} (attempt {result['attempt']}, "
                      f"{time.monotonic() - start:.1f} s)", file=sys.stderr)
            except ray.exceptions.RayTaskError as error:
                failed[shard] = error.cause if error.cause is not None else error
                print(f"{PROG}: shard {shard}/{args.shards} failed: {failed[shard]}", file=sys.stderr)
            except ray.exceptions.RayError as error:  # the worker or its node died on the last attempt
                failed[shard] = error
                print(f"{PROG}: shard {shard}/{args.shards} failed: {type(error).__name__}: {error}", file=sys.stderr)
        settled = True
    finally:
        attempts = len(glob.glob(os.path.join(glob.escape(run_dir), "shard-*.attempt-*[0-9]")))
        retried = len({path.split(".attempt-")[0] for path in glob.glob(os.path.join(glob.escape(run_dir), "shard-*.attempt-2"))})
        if settled:  # no posekit of this run is still writing: its temporary files are stale
            for path in temporary_files(output_dir) - earlier_temporaries:
                os.remove(path)
        shutil.rmtree(run_dir, ignore_errors=True)

    for shard, error in sorted(failed.items()):
        for line in getattr(error, "failed_inputs", ()):
            print(f"{PROG}: failed: {line}", file=sys.stderr)
    print(f"{PROG}: {len(done)} shard(s) done, {len(failed)} failed, {retried} retried "
          f"({attempts} attempt(s) for {args.shards} shard(s)) in {time.monotonic() - start:.1f} s",
          file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
