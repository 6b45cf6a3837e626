#!/usr/bin/env python3
"""Every `offtrace ...` command the docs show runs, as shown, on a real archive.

The doc test of issue 12 ("docs that stay true"): a stale example (an option
renamed, a `--from 16ms` past the end of the demo, a verb that changed its
output rules) fails here with the file:line of the doc, not in a reader's
shell.

What counts as a command (the rules docs/architecture.md, "Docs that stay
true", gives to writers of docs):
- a line in a fenced code block of README.md or docs/*.md whose first word,
  after any VAR=value assignments, is `offtrace` or a path ending in
  `/offtrace` (`build/bin/offtrace`); a line ending in `\\` continues on the
  next one. Blocks opened with ```text are output shown, not commands, and
  are not read. Inline `offtrace ...` spans in prose are not run: they name
  verbs and options (`offtrace record -b`) rather than complete commands.
- it must exit 0, unless its trailing comment starts with `fails`
  (`# fails: --from past the end`, optionally `exit N` for the exact status):
  then it must exit non-zero (N).

How it runs: each fenced block in a directory of its own, its commands in
order, through bash (pipes and redirections work; `pipefail` is set), with
the build's bin/ first on PATH and `build` naming the build tree. A command
that reads an archive by one of the names the docs use (ARCHIVE_NAMES) gets
the demo archive under that name, unless an earlier command of the block made
it; the demo archive is recorded once, from build/bin/example_cg, as setup.sh
does. A program the docs stand for (PROGRAMS: ./my_app) is the CG example.
Commands that cannot run here are listed in CANNOT_RUN with the reason; an
entry that no longer matches a doc line fails the test, so the list stays
true.

usage: doc_commands_test.py BUILD_DIR SOURCE_DIR
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

# Archive names used by the docs' examples; each maps onto the demo archive.
ARCHIVE_NAMES = {"run1", "run2", "run", "DIR", "offtrace-demo-cg", "transfer-mistakes"}
# Programs the docs stand for: name in the doc -> build/bin program run instead
# (by a script that leaves out the doc's placeholder arguments, `arg1 arg2`).
PROGRAMS = {"my_app": "example_cg"}
# Commands that cannot run here: exact command text (comment removed) -> why.
CANNOT_RUN = {}

FAILS_MARK = re.compile(r"#\s*fails\b(?:.*?\bexit\s+(\d+))?")
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
TIMEOUT_S = 300


def split_comment(line):
    """(command, comment): the comment is what follows the first unquoted
    `#` that starts a word, as bash reads it; '' when there is none."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip(), line[i:]
    return line.rstrip(), ""


def is_offtrace_command(command):
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    while words and ENV_ASSIGNMENT.match(words[0]):
        words.pop(0)
    return bool(words) and (words[0] == "offtrace" or words[0].endswith("/offtrace"))


def doc_commands(path, shown_as):
    """[(block number, 'file:line', command, comment)] of one Markdown file."""
    found, block, in_block, reading = [], 0, False, False
    pending, pending_line = "", 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.lstrip().startswith("```"):
                if not in_block:
                    block += 1
                    reading = line.strip()[3:].strip() != "text"
                in_block = not in_block
                pending = ""
                continue
            if not in_block or not reading:
                continue
            if not pending:
                pending_line = number
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            whole, pending = pending + line, ""
            command, comment = split_comment(whole)
            if is_offtrace_command(command):
                found.append((block, f"{shown_as}:{pending_line}", command, comment))
    return found


def archive_names_in(command):
    names = set()
    for word in shlex.split(command):
        if word.endswith("/traces.otf2"):
            word = word[: -len("/traces.otf2")]
        word = word.rstrip("/")
        if word in ARCHIVE_NAMES:
            names.add(word)
    return names


def is_record(command):
    words = [w for w in shlex.split(command) if not ENV_ASSIGNMENT.match(w)]
    return len(words) > 1 and words[1] == "record"


def run_block(commands, build_dir, demo, failures):
    work = tempfile.mkdtemp(prefix="doc-block-", dir=os.path.dirname(demo))
    os.symlink(build_dir, os.path.join(work, "build"))
    for name, program in PROGRAMS.items():
        script = os.path.join(work, name)
        with open(script, "w", encoding="utf-8") as f:
            f.write(f"#!/bin/sh\nexec {shlex.quote(os.path.join(build_dir, 'bin', program))}\n")
        os.chmod(script, 0o755)
    env = dict(os.environ)
    env["PATH"] = os.path.join(build_dir, "bin") + os.pathsep + env.get("PATH", "")
    for where, command, comment in commands:
        if not is_record(command):
            for name in archive_names_in(command):
                if not os.path.exists(os.path.join(work, name)):
                    shutil.copytree(demo, os.path.join(work, name))
        mark = FAILS_MARK.match(comment)
        try:
            done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=work, env=env,
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT_S)
            status, err = done.returncode, done.stderr.decode(errors="replace").strip()
        except subprocess.TimeoutExpired:
            status, err = None, f"still running after {TIMEOUT_S} s"
        last = err.splitlines()[-1] if err else "(nothing on stderr)"
        if status is None:
            failures.append(f"{where}: `{command}`: {err}")
        elif mark is None and status != 0:
            failures.append(f"{where}: `{command}` exited {status} (the doc shows it working): {last}")
        elif mark is not None and status == 0:
            failures.append(f"{where}: `{command}` succeeded, but the doc marks it `# fails`")
        elif mark is not None and mark.group(1) and status != int(mark.group(1)):
            failures.append(f"{where}: `{command}` exited {status}, the doc says exit {mark.group(1)}: {last}")
    shutil.rmtree(work, ignore_errors=True)


def check_docs(docs, build_dir, demo):
    """Run every command of \\p docs ([(path, shown_as)]); the failures and the number run."""
    failures, ran, used_exceptions = [], 0, set()
    for path, shown_as in docs:
        blocks = {}
        for block, where, command, comment in doc_commands(path, shown_as):
            if command in CANNOT_RUN:
                used_exceptions.add(command)
                continue
            blocks.setdefault(block, []).append((where, command, comment))
            ran += 1
        for block in sorted(blocks):
            run_block(blocks[block], build_dir, demo, failures)
    return failures, ran, used_exceptions


def self_check(build_dir, demo, scratch):
    """The checker itself: a stale command, a wrong `# fails` mark and a
    wrong exit status must each be caught, and a right mark accepted."""
    doc = os.path.join(scratch, "stale.md")
    with open(doc, "w", encoding="utf-8") as f:
        f.write("```\n"
                "offtrace view run1 -o a.svg --from 1h            # a range past the end: stale\n"
                "offtrace view run1 -o b.svg --from 1h            # fails: past the end\n"
                "offtrace view run1 -o c.svg --from 1h            # fails (exit 1)\n"
                "offtrace info run1                               # fails\n"
                "offtrace \\\n"
                "  view run1 -o d.svg --width 1                    # continued line: stale\n"
                "```\n"
                "```text\n"
                "offtrace report: output shown, never run\n"
                "```\n")
    failures, ran, _ = check_docs([(doc, "stale.md")], build_dir, demo)
    expected = ["stale.md:2:", "stale.md:4:", "stale.md:5:", "stale.md:6:"]
    got = [f.split(" ", 1)[0] for f in failures]
    if ran != 5 or got != expected:
        sys.exit(f"doc test: the checker itself is wrong: ran {ran} of 5 commands, "
                 f"flagged {got}, expected {expected}:\n  " + "\n  ".join(failures))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.rsplit("usage: ", 1)[1])
    build_dir, source_dir = (os.path.abspath(a) for a in sys.argv[1:])
    scratch = tempfile.mkdtemp(prefix="offtrace-doc-test-")
    try:
        demo = os.path.join(scratch, "demo")
        record = subprocess.run([os.path.join(build_dir, "bin", "offtrace"), "record", "-o", demo, "--",
                                 os.path.join(build_dir, "bin", "example_cg")],
                                stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT_S)
        if record.returncode != 0:
            sys.exit("doc test: recording the demo archive failed: " + record.stderr.decode(errors="replace"))
        self_check(build_dir, demo, scratch)

        names = ["README.md"] + sorted("docs/" + n for n in os.listdir(os.path.join(source_dir, "docs"))
                                       if n.endswith(".md"))
        docs = [(os.path.join(source_dir, n), n) for n in names]
        failures, ran, used = check_docs(docs, build_dir, demo)
        for command in sorted(set(CANNOT_RUN) - used):
            failures.append(f"CANNOT_RUN lists `{command}`, which no doc shows any more: remove it")
        for command in sorted(used):
            print(f"not run: `{command}`: {CANNOT_RUN[command]}")
        if ran == 0:
            failures.append("no `offtrace` command found in README.md and docs/*.md: is the extraction broken?")
        if failures:
            print("\n".join(failures))
            sys.exit(f"doc test: {len(failures)} of {ran} documented commands failed")
        print(f"doc test: all {ran} documented commands ran as the docs show them")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
