#!/usr/bin/python3
"""gen.py: inputs for bench/run.sh, made from real fio outputs.
  gen.py files DIR N BASE...  N fio JSON files: copies of the bases with the job names made
                              unique (so content hashes differ)
  gen.py log PATH MB SRC      a fio log of about MB megabytes: SRC's lines repeated with times
                              that keep increasing"""
import os, re, sys


def files(out, n, bases):
    os.makedirs(out, exist_ok=True)
    data = [open(b, "rb").read() for b in bases]
    for i in range(n):
        text = re.sub(rb'("jobname" : ")([^"]*)"', lambda m: m.group(1) + m.group(2) +
                      b"-%d\"" % i, data[i % len(data)])
        with open(os.path.join(out, "f%06d.json" % i), "wb") as f:
            f.write(text)


def log(out, mb, src):
    rows = [line.split(b",", 1) for line in open(src, "rb").read().splitlines() if line]
    span = int(rows[-1][0]) + 1
    target, written, rep = mb << 20, 0, 0
    with open(out, "wb") as f:
        while written < target:
            chunk = b"".join(b"%d,%s\n" % (int(t) + rep * span, rest) for t, rest in rows)
            f.write(chunk)
            written += len(chunk)
            rep += 1


if sys.argv[1] == "files":
    files(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
else:
    log(sys.argv[2], int(sys.argv[3]), sys.argv[4])
