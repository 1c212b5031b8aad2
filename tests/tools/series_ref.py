"""series_ref.py: fio's logs read and judged from the raw file, independently of benchdb: the
points of one direction of a windowed log, and the SNIA PTS steady-state rule over them
(docs/series.md)."""

SCALE = {"bw": 1024.0, "iops": 1.0, "lat": 1.0, "clat": 1.0, "slat": 1.0}


def log_points(path, ddir=0):
    """[(t_ms, value in base units)] of direction ddir (0 read, 1 write) of a windowed log, as
    fio wrote it; the kind (bw, iops, lat ...) from fio's name for it, PREFIX_KIND.N.log."""
    kind = path.rsplit("_", 1)[-1].split(".")[0]
    pts = []
    for line in open(path):
        cols = [c.strip() for c in line.split(",")]
        if cols[2] == str(ddir):
            pts.append((float(cols[0]), float(cols[1]) * SCALE[kind]))
    return pts


def snia(pts, rounds=10, window=5):
    """The SNIA PTS rule over the last `window` of `rounds` equal-time rounds of [0, last t]:
    (steady, range / mean, |slope| x (window - 1) / mean)."""
    end = pts[-1][0]
    sums, counts = [0.0] * rounds, [0] * rounds
    for tm, v in pts:
        k = min(max(int(tm * rounds / end), 0), rounds - 1)
        sums[k] += v
        counts[k] += 1
    y = [sums[k] / counts[k] for k in range(rounds - window, rounds)]
    mean = sum(y) / window
    xs = range(1, window + 1)
    xbar = sum(xs) / window
    slope = sum((x - xbar) * (v - mean) for x, v in zip(xs, y)) / sum((x - xbar) ** 2 for x in xs)
    rng, exc = (max(y) - min(y)) / mean, abs(slope) * (window - 1) / mean
    return rng <= 0.2 and exc <= 0.1, rng, exc
