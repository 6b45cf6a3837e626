#!/usr/bin/env python3
# damage_raw.py BASE_RAW OUTDIR CASE: make OUTDIR/raw, a copy of the recording BASE_RAW (a raw/ kept with
# OFFTRACE_KEEP_RAW=1) with one kind of damage, for tests of `offtrace convert` on bad input.
# damage_raw.py --list: the cases, one a line.
# (From the reproduction of issue 10; the maps_* cases replace the traced program's own path, taken from the
# first file mapping of the oldest maps snapshot.)
import os, shutil, struct, sys, random
if sys.argv[1:] == ["--list"]:
    import re
    print("\n".join(re.findall(r'case == "([a-z_0-9]+)"', open(__file__).read())))
    sys.exit(0)
base, out, case = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(out, ignore_errors=True); os.makedirs(out)
raw = os.path.join(out, "raw"); shutil.copytree(base, raw)
open(os.path.join(raw, "status"), "w").write("recording")
T = os.path.join(raw, "thread-0.rec"); D = os.path.join(raw, "device-0.rec"); C = os.path.join(raw, "clock.pairs")
def program_path(raw_dir):
    maps = sorted(f for f in os.listdir(raw_dir) if f.startswith("maps."))
    for line in open(os.path.join(raw_dir, maps[0])):
        fields = line.split(None, 5)
        if len(fields) == 6 and fields[5].startswith("/"):
            return fields[5].rstrip("\n")
    sys.exit("no program path in " + maps[0])
def patch(path, off, data):
    with open(path, "r+b") as f: f.seek(off); f.write(data)
random.seed(case)
if case == "thread_empty": open(T, "w").close()
elif case == "thread_100": os.truncate(T, 100)
elif case == "thread_halfrec": os.truncate(T, 4096 + 64 * 10 + 32)
elif case == "thread_bad_magic": patch(T, 0, b"XXXXXXX\0")
elif case == "thread_old_version": patch(T, 8, struct.pack("<I", 2))
elif case == "thread_future_version": patch(T, 8, struct.pack("<I", 99))
elif case == "thread_recsize": patch(T, 12, struct.pack("<I", 0))
elif case == "thread_recsize_huge": patch(T, 12, struct.pack("<I", 0xffffffff))
elif case == "thread_chunk0": patch(T, 40, struct.pack("<Q", 0))
elif case == "thread_chunk_huge": patch(T, 40, struct.pack("<Q", 1 << 62))
elif case == "thread_lost_huge": patch(T, 32, struct.pack("<Q", (1 << 64) - 1))
elif case == "thread_index_huge": patch(T, 16, struct.pack("<I", 0xffffffff))
elif case == "thread_random_records":
    sz = os.path.getsize(T); patch(T, 4096, os.urandom(sz - 4096))
elif case == "thread_random_events":   # valid-looking records with random fields, event byte in range
    sz = os.path.getsize(T); n = (sz - 4096) // 64
    with open(T, "r+b") as f:
        for i in range(min(n, 3000)):
            f.seek(4096 + 64 * i); r = bytearray(os.urandom(64)); r[63] = random.randint(1, 12); f.write(r)
elif case == "thread_lone_parallel_end":  # a parallel region's end with no begin, before every other record
    with open(T, "r+b") as f:
        f.seek(4096); first = struct.unpack("<Q", f.read(8))[0]
        f.seek(4096); f.write(struct.pack("<Q", max(first - 10**9, 1)) + bytes(53) + bytes([2, 0, 7]))
elif case == "thread_time_backwards":
    with open(T, "r+b") as f:
        for i in range(200):
            f.seek(4096 + 64 * i); f.write(struct.pack("<Q", 10**12 - i * 10**6))
elif case == "thread_all_ff": sz = os.path.getsize(T); patch(T, 4096, b"\xff" * (sz - 4096))
elif case == "thread_sparse_huge": os.truncate(T, 1 << 40)
elif case == "thread_is_fifo": os.remove(T); os.mkfifo(T)
elif case == "thread_is_dir": os.remove(T); os.mkdir(T)
elif case == "thread_symlink_devzero": os.remove(T); os.symlink("/dev/zero", T)
elif case == "thread_many_files":
    for i in range(1, 2000): shutil.copy(T, os.path.join(raw, "thread-%d.rec" % i)) if i < 3 else os.symlink("thread-1.rec", os.path.join(raw, "thread-%d.rec" % i))
elif case == "thread_name_weird": os.rename(T, os.path.join(raw, "thread-99999999999999999999.rec"))
elif case == "no_thread": os.remove(T)
elif case == "clock_empty": open(C, "w").close()
elif case == "clock_one": open(C, "w").write(open(C).readline())
elif case == "clock_garbage": open(C, "w").write("abc def ghi\n\x00\x01\n")
elif case == "clock_huge": open(C, "w").write("18446744073709551615 18446744073709551615 18446744073709551615\n1 1 1\n")
elif case == "clock_same": l = open(C).readline(); open(C, "w").write(l * 5)
elif case == "clock_backwards":
    ls = open(C).read().split("\n"); open(C, "w").write("\n".join(reversed([l for l in ls if l])) + "\n")
elif case == "clock_zero_rate": open(C, "w").write("100 5 5\n200 5 5\n300 5 5\n")
elif case == "clock_negative": open(C, "w").write("100 -5 -5\n200 -4 -4\n")
elif case == "clock_longline": open(C, "w").write("1" * 100000 + " 2 3\n")
elif case == "dev_empty": open(D, "w").close()
elif case == "dev_trunc": os.truncate(D, 64 + 48 * 100 + 20)
elif case == "dev_bad_magic": patch(D, 0, b"YYYYYYY\0")
elif case == "dev_recsize0": patch(D, 12, struct.pack("<I", 0))
elif case == "dev_num_huge": patch(D, 16, struct.pack("<i", 2**31 - 1))
elif case == "dev_num_neg": patch(D, 16, struct.pack("<i", -5))
elif case == "dev_random_records": sz = os.path.getsize(D); patch(D, 64, os.urandom(sz - 64))
elif case == "dev_name_neg": os.rename(D, os.path.join(raw, "device--1.rec"))
elif case == "dev_name_big": os.rename(D, os.path.join(raw, "device-70000.rec"))
elif case == "devices_garbage": open(os.path.join(raw, "devices.txt"), "w").write("x y z\n-1\n99999999999 " + "k" * 10000 + "\n")
elif case == "maps_garbage":
    for f in os.listdir(raw):
        if f.startswith("maps."): open(os.path.join(raw, f), "w").write("zzzz\n" + "0-ffffffffffffffff r-xp 0 0:0 0 /dev/zero\n")
elif case == "maps_fifo":
    program = program_path(raw)
    os.mkfifo(os.path.join(out, "fifo"))
    for f in os.listdir(raw):
        if f.startswith("maps."):
            ls = open(os.path.join(raw, f)).read().split("\n")
            ls = [l.replace(program, os.path.abspath(os.path.join(out, "fifo"))) for l in ls]
            open(os.path.join(raw, f), "w").write("\n".join(ls))
elif case == "maps_devzero":
    program = program_path(raw)
    for f in os.listdir(raw):
        if f.startswith("maps."):
            ls = open(os.path.join(raw, f)).read().split("\n")
            ls = [l.replace(program, "/dev/zero") for l in ls]
            open(os.path.join(raw, f), "w").write("\n".join(ls))
elif case == "maps_missing":
    for f in os.listdir(raw):
        if f.startswith("maps."): os.remove(os.path.join(raw, f))
elif case == "status_converted": open(os.path.join(raw, "status"), "w").write("converted")
elif case == "status_garbage": open(os.path.join(raw, "status"), "wb").write(os.urandom(5000))
elif case == "traces_exists":
    os.makedirs(os.path.join(out, "traces")); open(os.path.join(out, "traces.otf2"), "w").write("junk")
elif case == "raw_is_file": shutil.rmtree(raw); open(raw, "w").write("x")
elif case == "raw_empty": shutil.rmtree(raw); os.makedirs(raw)
elif case == "none": pass
else: sys.exit("unknown case " + case)
