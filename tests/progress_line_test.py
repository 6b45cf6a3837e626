#!/usr/bin/env python3
"""The progress line of reader passes (host/progress/progress.h), through a
real pseudo-terminal.

Every verb that reads an archive (report, view, export, info) goes through
host/analysis/trace_read.c, which shows "offtrace: reading the archive: N %
of the events, S s" on stderr once the pass has taken a second, only when
stderr is a terminal, and erases it ("\\r\\033[K") before anything else is
written. The demo archive reads in milliseconds, so the tests' knob
OFFTRACE_TEST_PROGRESS_AFTER_MS=0 lowers the second to nothing; without it
the same fast read shows no line. With stderr a pipe there is never a line,
and `export -o -` writing to the terminal itself shows none either (it would
mix into the JSON).

usage: progress_line_test.py BUILD_DIR
"""
import os
import pty
import shutil
import subprocess
import sys
import tempfile

LINE = b"\rofftrace: reading the archive: "
ERASE = b"\r\033[K"


def run_on_terminal(argv, env, stdout_on_terminal=False):
    """Run argv with stderr (and stdout, if asked) on a new pseudo-terminal;
    (exit status, what the terminal got)."""
    master, slave = pty.openpty()
    out = slave if stdout_on_terminal else subprocess.DEVNULL
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=slave, env=env)
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every copy of the terminal's slave side is closed
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    return child.wait(timeout=120), got


def main():
    build = os.path.abspath(sys.argv[1])
    offtrace = os.path.join(build, "bin", "offtrace")
    scratch = tempfile.mkdtemp(prefix="offtrace-progress-test-")
    failures = []
    try:
        demo = os.path.join(scratch, "demo")
        subprocess.run([offtrace, "record", "-o", demo, "--", os.path.join(build, "bin", "example_cg")],
                       stdin=subprocess.DEVNULL, capture_output=True, check=True, timeout=120)
        base = {k: v for k, v in os.environ.items() if k != "OFFTRACE_TEST_PROGRESS_AFTER_MS"}
        now = dict(base, OFFTRACE_TEST_PROGRESS_AFTER_MS="0")
        verbs = {
            "report": [offtrace, "report", "-o", os.path.join(scratch, "r.txt"), demo],
            "view": [offtrace, "view", demo, "-o", os.path.join(scratch, "v.svg")],
            "export": [offtrace, "export", demo, "-o", os.path.join(scratch, "e.json")],
            "info": [offtrace, "info", demo],
        }
        for verb, argv in verbs.items():
            status, got = run_on_terminal(argv, now)
            if status != 0:
                failures.append(f"{verb} on a terminal exited {status}: {got!r}")
                continue
            at = got.find(LINE)
            if at < 0 or b" % of the events, " not in got[at:]:
                failures.append(f"{verb}: no progress line on the terminal: {got!r}")
            elif got.find(ERASE, at) < 0:
                failures.append(f"{verb}: the progress line is not erased: {got!r}")
            elif any(b not in b"\r" for b in got[:at]):
                failures.append(f"{verb}: something came before the progress line: {got!r}")

            done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, env=now, timeout=120)
            if done.returncode != 0 or b"reading the archive" in done.stderr or b"\r" in done.stderr:
                failures.append(f"{verb} with stderr in a pipe: exit {done.returncode}, stderr {done.stderr!r}")

            status, got = run_on_terminal(argv, base)
            if status != 0 or b"reading the archive" in got:
                failures.append(f"{verb}: a read of milliseconds showed the line (the second is not kept): {got!r}")

        status, got = run_on_terminal([offtrace, "export", demo, "-o", "-"], now, stdout_on_terminal=True)
        if status != 0 or b"reading the archive" in got or b'"traceEvents"' not in got:
            failures.append(f"export -o - on the terminal: exit {status}, a progress line mixed into it or "
                            f"no JSON: {got[:300]!r}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        sys.exit("\n".join(failures))
    print("progress lines: on a terminal only, erased, never in a pipe or in output on the terminal")


if __name__ == "__main__":
    main()
