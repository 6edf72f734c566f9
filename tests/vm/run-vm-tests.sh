#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The VM tier: boot the patched test kernel under QEMU and run the guest
# checks (tests/vm/guest-tests.sh) against its interfaces.
#
#   tests/vm/run-vm-tests.sh BUILD_DIR          (make check-vm)
#
# Steps: build or reuse the kernel (build-kernel.sh), build the guest probe into
# BUILD_DIR/tests/vm/, pack a busybox initramfs, boot under TCG with the host
# root shared read-only over 9p and BUILD_DIR/tests/vm/share as the rw results
# share, and report.  The last line is "N passed, N failed, N skipped"; the
# exit status is non-zero if a check failed or the VM did not finish.  The
# serial console is in BUILD_DIR/tests/vm/serial.log, the logs of each check in
# BUILD_DIR/tests/vm/share/logs/.
#
# Environment:
#   ATAG_VM_CACHE    kernel cache (default /var/cache/trace-cmd-alloc-tag/vm)
#   ATAG_VM_TIMEOUT  guest watchdog in seconds (default 600); QEMU gets 120 more
#   ATAG_VM_ACCEL    QEMU accelerator (default tcg; kvm only where it works)
#   ATAG_VM_APPEND   extra kernel command line
#   ATAG_VM_KDIR     use the bzImage and atag_test.ko in this directory instead
#                    of building (kernel development)
#   ATAG_VM_SCRIPT   the guest script to run instead of tests/vm/guest-tests.sh
#                    (tests/vm/record-sample.sh uses it; it must be visible in
#                    the guest, so not under /tmp or /run unless in the checkout)
set -eu

[ $# = 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }

msg() { echo "check-vm: $*"; }
result() { echo "$1 passed, $2 failed, $3 skipped"; }

if [ "$(id -u)" != 0 ]; then
	# QEMU exports / with security_model=none, which needs root to read it.
	msg "SKIP: the VM tier runs as root (it shares the host root with the guest)"
	result 0 0 1
	exit 0
fi

SRC=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
O=$(cd "$1" && pwd)
W=$O/tests/vm
TIMEOUT=${ATAG_VM_TIMEOUT:-600}
SCRIPT=${ATAG_VM_SCRIPT:-$SRC/tests/vm/guest-tests.sh}
case "$SCRIPT" in /*) ;; *) SCRIPT=$(pwd)/$SCRIPT ;; esac
ACCEL=${ATAG_VM_ACCEL:-tcg}
for c in qemu-system-x86_64 busybox cpio gzip gcc; do
	command -v $c >/dev/null || { msg "ERROR: $c missing (scripts/deps.sh --vm)"; result 0 1 0; exit 1; }
done
BUSYBOX=$(command -v busybox)
file -L "$BUSYBOX" 2>/dev/null | grep -q 'dynamically linked' &&
	{ msg "ERROR: $BUSYBOX is not static (install busybox-static)"; result 0 1 0; exit 1; }

t0=$(date +%s)
if [ -n "${ATAG_VM_KDIR:-}" ]; then
	KDIR=$ATAG_VM_KDIR
else
	KDIR=$("$SRC/tests/vm/build-kernel.sh") ||
		{ msg "ERROR: the test kernel did not build"; result 0 1 0; exit 1; }
fi
t1=$(date +%s)
msg "kernel: $KDIR ($((t1 - t0)) s)"

mkdir -p "$W"
${CC:-gcc} -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-I"$SRC/include" -o "$W/atag-vm-probe" "$SRC/tests/vm/atag-vm-probe.c" ||
	{ msg "ERROR: the guest probe did not build"; result 0 1 0; exit 1; }

# initramfs: static busybox and /init
rm -rf "$W/initramfs"
mkdir -p "$W/initramfs/bin" "$W/initramfs/proc" "$W/initramfs/sys" "$W/initramfs/dev" \
	"$W/initramfs/tmp"
cp "$BUSYBOX" "$W/initramfs/bin/busybox"
cp "$SRC/tests/vm/init.sh" "$W/initramfs/init"
chmod 755 "$W/initramfs/init"
(cd "$W/initramfs" && find . | cpio -o -H newc --quiet | gzip -1) >"$W/initramfs.cpio.gz"
rm -rf "$W/initramfs"

# the rw share: run.sh and the module in, results out
rm -rf "$W/share"
mkdir -p "$W/share"
cp "$KDIR/atag_test.ko" "$W/share/"
cat >"$W/share/run.sh" <<EOF
#!/bin/sh
export ATAG_VM_SRC='$SRC'
export ATAG_VM_BUILD='$O'
export ATAG_VM_PROBE='$W/atag-vm-probe'
export ATAG_VM_MODULE=/run/atag-vm/atag_test.ko
export ATAG_VM_RESULTS=/run/atag-vm
exec /bin/sh '$SCRIPT'
EOF

# /tmp and /run are tmpfs in the guest: a checkout there is shared on its own
SRCSHARE=
case "$SRC" in
/tmp/* | /run/*)
	SRCSHARE="-virtfs local,path=$SRC,mount_tag=atagsrc,security_model=none,readonly=on,multidevs=remap,id=src"
	APPEND_SRC="atag_vm.src=$SRC" ;;
*)	APPEND_SRC= ;;
esac
case "$O" in
"$SRC"/*) ;;
/tmp/* | /run/*) msg "ERROR: BUILD_DIR $O is not visible in the guest"; result 0 1 0; exit 1 ;;
esac

if [ "$ACCEL" = kvm ]; then CPU="-enable-kvm -cpu host"; else CPU="-accel tcg -cpu max"; fi
# A persistent ring buffer on 4 MiB of reserved memory, for trace_stats.
APPEND="console=ttyS0 panic=-1 oops=panic quiet loglevel=4 \
reserve_mem=4M:4096:atagvm trace_instance=atag_persist@atagvm \
atag_vm.timeout=$TIMEOUT $APPEND_SRC ${ATAG_VM_APPEND:-}"

msg "booting ($ACCEL) and running the guest checks"
rc=0
# shellcheck disable=SC2086
timeout $((TIMEOUT + 120)) qemu-system-x86_64 $CPU -smp 2 -m 1G -nodefaults -no-reboot \
	-display none -monitor none -serial file:"$W/serial.log" \
	-kernel "$KDIR/bzImage" -initrd "$W/initramfs.cpio.gz" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap,id=hostroot \
	-virtfs local,path="$W/share",mount_tag=atagvm,security_model=none,id=atagvm \
	$SRCSHARE -append "$APPEND" || rc=$?
t2=$(date +%s)
[ $rc = 124 ] && msg "ERROR: QEMU killed after $((TIMEOUT + 120)) s"
[ $rc = 0 ] || msg "QEMU exited with $rc"
msg "VM ran $((t2 - t1)) s"

R=$W/share/results.txt
if [ -f "$R" ]; then
	grep -v '^DONE' "$R" | sed 's/^/  /'
fi
pass=$(grep -c '^PASS ' "$R" 2>/dev/null || true)
fail=$(grep -c '^FAIL ' "$R" 2>/dev/null || true)
skip=$(grep -c '^SKIP ' "$R" 2>/dev/null || true)
finished=yes
if ! grep -q '^DONE' "$R" 2>/dev/null || [ ! -f "$W/share/rc" ]; then
	finished=no
	fail=$((fail + 1))
	msg "ERROR: the guest did not finish; end of the serial console ($W/serial.log):"
	tail -n 60 "$W/serial.log" | sed 's/^/  | /'
fi
for t in $(grep '^FAIL ' "$R" 2>/dev/null | cut -d' ' -f2); do
	msg "---- $t (share/logs/$t.log)"
	grep -v '^ok - ' "$W/share/logs/$t.log" | sed 's/^/  /'
done
[ "$fail" = 0 ] || msg "serial console: $W/serial.log, logs: $W/share/logs/"
[ $finished = yes ] && [ "$fail" = 0 ] && msg "all done in $((t2 - t0)) s"
result "$pass" "$fail" "$skip"
[ "$fail" = 0 ]
