#!/usr/bin/env python3
"""usage: check_rpaths.py READELF FILE=EXPECTED_FIRST_ENTRY ...

Each FILE's RUNPATH (or RPATH) starts with EXPECTED_FIRST_ENTRY (further
entries are absolute directories of dependencies outside the system's) and
has no empty entry: glibc searches an empty entry as the current directory,
which CMake's placeholder rpath (":::::::") would give the build tree."""
import subprocess
import sys

failures = []
readelf = sys.argv[1]
for check in sys.argv[2:]:
    path, expected = check.split("=", 1)
    out = subprocess.run([readelf, "-d", path], capture_output=True, text=True, check=True).stdout
    paths = [line.split("[", 1)[1].rsplit("]", 1)[0] for line in out.splitlines()
             if "(RUNPATH)" in line or "(RPATH)" in line]
    if len(paths) != 1:
        failures.append(f"{path}: {len(paths)} RPATH/RUNPATH entries, expected one")
        continue
    entries = paths[0].split(":")
    if "" in entries:
        failures.append(f"{path}: runpath '{paths[0]}' has an empty entry (the current directory)")
    elif entries[0] != expected or any(not e.startswith("/") for e in entries[1:]):
        failures.append(f"{path}: runpath '{paths[0]}', expected '{expected}' then absolute directories")
if failures:
    sys.exit("\n".join(failures))
print(f"{len(sys.argv) - 2} files: runpaths as the README says")
