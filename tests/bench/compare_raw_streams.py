#!/usr/bin/env python3
"""Compare the host raw streams (raw/thread-*.rec, kept with
OFFTRACE_KEEP_RAW=1) of two recordings of the same program by two builds
of the recorder: every record field but the times (a record's time, a
COMPLETE record's end_time); SYNC records, taken on a time pace, are left
out. A change to the recorder that is not meant to change what it records
shows EQUAL (run_compare_raw.sh). With a third argument (threads), the
multiset of the records of all streams is compared, without ids and
addresses, which depend on which thread ran what.
  usage: compare_raw_streams.py RECORDING_A RECORDING_B [threads]
Exit status 0 when equal."""
import sys, os, struct, glob, collections
HDR = 4096
def records(d):
    out = {}
    for f in sorted(glob.glob(os.path.join(d, 'raw', 'thread-*.rec'))):
        b = open(f, 'rb').read()
        recs = []
        for off in range(HDR, len(b) - 63, 64):
            t, i, tid, cp, by, sa, da, sd, dd, sk, ep, fl, ev = struct.unpack_from('<QQQQQQQhhBBBB', b, off)
            if ev == 0: continue
            if ev == 4:   # SYNC: clock values, taken on a time pace: left out
                continue
            if ep == 3: tid = None  # COMPLETE: end_time
            recs.append((ev, sk, ep, fl, sd, dd, i, tid, cp, by, sa, da))
        out[os.path.basename(f)] = recs
    return out
a, b = records(sys.argv[1]), records(sys.argv[2])
if len(sys.argv) > 3:  # threads: the multiset of what was recorded, ids and addresses left out
    # (a TARGET's bytes are its map site's number, given in the order the threads reach them)
    key = lambda r: r[:6] + r[8:9] + ((None,) if r[0] == 1 else r[9:10])
    a = {'all': sorted(key(r) for v in a.values() for r in v)}
    b = {'all': sorted(key(r) for v in b.values() for r in v)}
same = a == b
cnt = collections.Counter(r[0] for v in a.values() for r in v)
print("streams %d/%d records %d/%d by event %s: %s" % (len(a), len(b), sum(map(len, a.values())), sum(map(len, b.values())),
      dict(sorted(cnt.items())), "EQUAL (times masked)" if same else "DIFFER"))
if not same:
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k, []), b.get(k, [])
        for j, (p, q) in enumerate(zip(x, y)):
            if p != q: print(k, j, p, q); break
        if len(x) != len(y): print(k, "lengths", len(x), len(y))
sys.exit(0 if same else 1)
