#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the VM tier's initramfs (static busybox only).  Mounts the host's
# root file system read-only over virtio-9p, the rw share "atagvm" at
# /run/atag-vm inside it, chroots there and runs /run/atag-vm/run.sh under a
# watchdog, writes its exit status to /run/atag-vm/rc and powers off.
#
# Kernel command line:
#   atag_vm.timeout=SECONDS   watchdog for run.sh (default 600)
#   atag_vm.src=PATH          the checkout, when it is not visible through the
#                             host root (under /tmp or /run); shared as "atagsrc"

/bin/busybox --install -s /bin
export PATH=/bin:/sbin

log() { echo "atag-vm: $*"; }

finish() {
	log "uptime at end $(cut -d' ' -f1 /proc/uptime) s"
	sync
	poweroff -f
	# without ACPI poweroff, QEMU runs with -no-reboot
	reboot -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null

timeout=600
src=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	atag_vm.timeout=*) timeout=${arg#*=} ;;
	atag_vm.src=*) src=${arg#*=} ;;
	esac
done
log "kernel $(uname -r), uptime at init $(cut -d' ' -f1 /proc/uptime) s, $(grep -c ^processor /proc/cpuinfo) CPUs"

R=/newroot
mkdir -p $R
if ! mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot $R; then
	log "ERROR: cannot mount the host root (9p tag hostroot)"
	finish
fi
mount -t tmpfs tmpfs $R/tmp
mount -t tmpfs tmpfs $R/run
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t tracefs tracefs $R/sys/kernel/tracing
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
mount -t devtmpfs devtmpfs $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts devpts $R/dev/pts 2>/dev/null
mount -t tmpfs tmpfs $R/dev/shm
mkdir -p $R/run/atag-vm
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 atagvm $R/run/atag-vm; then
	log "ERROR: cannot mount the results share (9p tag atagvm)"
	finish
fi
if [ -n "$src" ]; then
	mkdir -p "$R$src" &&
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose atagsrc "$R$src" ||
	log "ERROR: cannot mount the checkout at $src"
fi

log "running run.sh (watchdog ${timeout} s)"
timeout "$timeout" chroot $R /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/tmp LANG=C.UTF-8 /bin/sh /run/atag-vm/run.sh
rc=$?
[ $rc = 143 ] && log "ERROR: watchdog expired after ${timeout} s"
log "run.sh exited with $rc"
echo $rc > $R/run/atag-vm/rc
sync
umount $R/run/atag-vm
finish
