#!/usr/bin/env python3
"""Write offtrace's man pages from the CLI's own help: offtrace(1) from
`offtrace --help` and offtrace-VERB(1) from `offtrace VERB --help`.

The option table in host/cli/options.c is the one source of every option's
text; this script only turns what the built CLI prints into roff, so a man
page cannot say something the CLI's --help does not. It fails (non-zero
exit) when the help no longer has the layout it reads, rather than writing a
page with pieces missing.

usage: offtrace_man.py CLI OUTDIR VERSION
"""
import os
import re
import subprocess
import sys

HELP_COLUMN = 25  # "  %-22s " in ot_cli_print_help: the help text starts here


def run(cli, *args):
    done = subprocess.run([cli, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"offtrace_man: `offtrace {' '.join(args)}` failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout.splitlines()


def roff_text(text):
    """Running text: backslashes escaped, no line taken for a request."""
    text = text.replace("\\", "\\e")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def roff_option(text):
    """An option's name or a command: its hyphens are real minus signs."""
    return roff_text(text).replace("-", "\\-")


def header(out, name, summary, version):
    out.write(f'.TH {name.upper()} 1 "" "offtrace {version}" "offtrace manual"\n')
    out.write(".SH NAME\n")
    out.write(f"{roff_option(name)} \\- {roff_text(summary)}\n")


def see_also(out, pages, this):
    others = [p for p in pages if p != this]
    out.write(".SH SEE ALSO\n")
    out.write(",\n".join(f".BR {roff_option(p)} (1)" for p in others) + "\n")
    out.write(".PP\n")
    out.write("The guides installed with offtrace, in share/doc/offtrace under its installation prefix:\n")
    out.write("README.md, report.md, view.md, export.md, trace-model.md, reliability.md, performance.md.\n")


def verb_overview(lines):
    """(name, summary) of each verb, and the example lines, from `offtrace --help`."""
    verbs, examples = [], []
    for line in lines[1:]:
        if not line.strip():
            continue
        m = re.match(r"^  ([a-z]+)  +(\S.*)$", line)
        if m and not examples:
            verbs.append((m.group(1), m.group(2)))
        elif line.startswith("  ") and verbs:
            examples.append(line.strip())
    if not verbs:
        sys.exit("offtrace_man: `offtrace --help` lists no verbs")
    return verbs, examples


def verb_page(cli, verb, summary, pages, version, outdir):
    lines = run(cli, verb, "--help")
    if not lines or not lines[0].startswith(f"usage: offtrace {verb} "):
        sys.exit(f"offtrace_man: `offtrace {verb} --help` does not start with its usage line")
    synopsis = lines[0][len("usage: "):]
    try:
        options_at = lines.index("options:")
    except ValueError:
        sys.exit(f"offtrace_man: `offtrace {verb} --help` has no options: section")
    about = [l.strip() for l in lines[1:options_at] if l.strip()]
    options = []  # (name, [help lines])
    for line in lines[options_at + 1:]:
        if not line.strip():
            continue
        if line[:HELP_COLUMN].strip() == "":  # a continuation of the option above
            if not options:
                sys.exit(f"offtrace_man: `offtrace {verb} --help`: a continuation with no option")
            options[-1][1].append(line.strip())
            continue
        if not line.startswith("  -") or line[HELP_COLUMN - 1] != " ":
            sys.exit(f"offtrace_man: `offtrace {verb} --help`: unexpected line: {line!r}")
        options.append((line[:HELP_COLUMN].strip(), [line[HELP_COLUMN:].strip()]))
    name = f"offtrace-{verb}"
    with open(os.path.join(outdir, f"{name}.1"), "w") as out:
        header(out, name, summary, version)
        out.write(".SH SYNOPSIS\n")
        out.write(f".B {roff_option(synopsis)}\n")
        out.write(".SH DESCRIPTION\n")
        for line in about:
            out.write(roff_text(line) + "\n")
        out.write(".SH OPTIONS\n")
        for option, help_lines in options:
            out.write(".TP\n")
            out.write(f".B {roff_option(option)}\n")
            for line in help_lines:
                out.write(roff_text(line) + "\n")
        see_also(out, pages, name)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    cli, outdir, version = sys.argv[1:]
    os.makedirs(outdir, exist_ok=True)
    for old in os.listdir(outdir):  # a verb that is gone leaves no page behind to be installed
        if old.endswith(".1"):
            os.remove(os.path.join(outdir, old))
    verbs, examples = verb_overview(run(cli, "--help"))
    pages = ["offtrace"] + [f"offtrace-{v}" for v, _ in verbs]
    for verb, summary in verbs:
        verb_page(cli, verb, summary, pages, version, outdir)
    with open(os.path.join(outdir, "offtrace.1"), "w") as out:
        header(out, "offtrace", "an offload-aware tracer for OpenMP target programs", version)
        out.write(".SH SYNOPSIS\n")
        out.write(".B offtrace\n.I verb\n[options] ...\n")
        out.write(".SH VERBS\n")
        for verb, summary in verbs:
            out.write(".TP\n")
            out.write(f".BR offtrace\\-{roff_option(verb)} (1)\n")
            out.write(roff_text(summary) + "\n")
        if examples:
            out.write(".SH EXAMPLES\n")
            for line in examples:
                out.write(".PP\n")
                out.write(roff_text(line) + "\n")
        see_also(out, pages, "offtrace")


if __name__ == "__main__":
    main()
