#!/usr/bin/env bash
# gen.sh: regenerates the bundled example results, as root, with the real fio (Debian 12's fio
# 3.33): "is the premium tier worth it?" asked on one machine, as a cloud volume's tiers differ.
# Both volumes are ext4 on a 2 GiB loop device of their own (direct I/O on the loop device too,
# so that O_DIRECT reaches the disk below); the standard one is capped as a cloud volume's
# baseline is (AWS gp3: 3,000 IOPS and 125 MiB/s), by the blkio cgroup's throttle on its loop
# device, the premium one is not. The throttle holds back what exceeds the cap and releases it
# slice by slice (blk-throttle's slice is 100 ms): the capped volume's p99 latencies of 90-100
# ms at queue depth 4 and more are that wait, as a cloud volume's queue at its cap is.
# The ten jobs of demo.fio run three times on each volume, alternating between them so that a
# drift of the machine hits both alike. Each run is a folder: fio's json+ output untouched, its
# bandwidth log, and the folder's sidecar benchdb.meta, which labels both (storage class, the
# mount as the kernel lists it, the cap as a tag).
# Usage: examples/gen.sh [OUTDIR] (default: the folder of this script); about 12 minutes, on an
# otherwise idle machine (made on 2 vCPUs, a virtual disk, kernel 6.18, cgroup v1's blkio).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here}" && cd "${1:-$here}" && pwd)
img=${TMPDIR:-/var/tmp}
cg=/sys/fs/cgroup/blkio/benchdb-demo-standard
iops=3000 bps=$((125 << 20))
for class in standard premium; do
  truncate -s 2G "$img/benchdb-demo-$class.img"
  mkfs.ext4 -q -F "$img/benchdb-demo-$class.img"
  mkdir -p "/mnt/benchdb-demo-$class"
  dev=$(losetup --direct-io=on --find --show "$img/benchdb-demo-$class.img")
  mount "$dev" "/mnt/benchdb-demo-$class"
done
dev=$(findmnt -n -o SOURCE /mnt/benchdb-demo-standard)
majmin=$(cat "/sys/block/${dev#/dev/}/dev")
mkdir -p "$cg"
for dir in read write; do
  echo "$majmin $iops" >"$cg/blkio.throttle.${dir}_iops_device"
  echo "$majmin $bps" >"$cg/blkio.throttle.${dir}_bps_device"
done
for rep in 1 2 3; do
  for class in standard premium; do
    run=$out/$class/run$rep
    mkdir -p "$run" "/mnt/benchdb-demo-$class/work"
    # the standard volume's fio runs in the throttled cgroup (its job processes inherit it)
    (cd "$run" && if [ $class = standard ]; then echo $BASHPID >"$cg/tasks"; fi &&
      exec fio --directory="/mnt/benchdb-demo-$class/work" --output-format=json+ \
        --output=demo.json "$here/demo.fio")
    {
      echo "storage_class=$class"
      echo "mount=$(grep " /mnt/benchdb-demo-$class " /proc/mounts)"
      [ $class = standard ] && echo "tag.qos=$iops IOPS, 125 MiB/s" || echo "tag.qos=none"
    } >"$run/benchdb.meta"
    rm -rf "/mnt/benchdb-demo-$class/work"
  done
done
for class in standard premium; do
  dev=$(findmnt -n -o SOURCE "/mnt/benchdb-demo-$class")
  umount "/mnt/benchdb-demo-$class"
  losetup -d "$dev"
  rm -f "$img/benchdb-demo-$class.img"
done
rmdir "$cg"
