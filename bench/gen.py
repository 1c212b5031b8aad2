#!/usr/bin/python3
"""gen.py: inputs for bench/run.sh, made from real fio outputs.
  gen.py files DIR N BASE...  N fio JSON files: copies of the bases with the job names made
                              unique (so content hashes differ)
  gen.py varied DIR N BASE... the same, with every number of two or more digits redrawn but its
                              first digit (so each file differs from the others as a fleet's
                              runs do: in every measured value, not only in a name)
  gen.py log PATH MB SRC      a fio log of about MB megabytes: SRC's lines repeated with times
                              that keep increasing
$GEN_SEED (default 17) seeds the redrawing: another seed, other files (bench/fleet.sh gives each
host its own)."""
import os, random, re, sys


def redraw(text, rng):
    """Each number after a key (`: 123`) of two or more digits, its digits but the first
    redrawn: the same magnitude, another value."""
    return re.sub(rb"(?<=: )(\d)(\d+)", lambda m: m.group(1) + bytes(
        rng.choice(b"0123456789") for _ in m.group(2)), text)


def files(out, n, bases, varied=False):
    os.makedirs(out, exist_ok=True)
    data = [open(b, "rb").read() for b in bases]
    rng = random.Random(int(os.environ.get("GEN_SEED", 17)))
    for i in range(n):
        text = re.sub(rb'("jobname" : ")([^"]*)"', lambda m: m.group(1) + m.group(2) +
                      b"-%d\"" % i, data[i % len(data)])
        if varied:
            text = redraw(text, rng)
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


if sys.argv[1] in ("files", "varied"):
    files(sys.argv[2], int(sys.argv[3]), sys.argv[4:], sys.argv[1] == "varied")
else:
    log(sys.argv[2], int(sys.argv[3]), sys.argv[4])
