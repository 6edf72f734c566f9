#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: live
# tier: normal build (the README's commands; the sanitizers watch them in the other tiers)
# The README's examples that need root: the demo blocks (make demo's doubles: /dev/fuse,
# uprobes) and the live ones (this machine's kernel, its real tracefs), each command
# run and required to exit 0; the offline blocks again, compared. Not root: skipped,
# saying so (tests/t-readme.sh runs the offline blocks for everyone).
ATAG_TIER_NAME=t-readme-live exec sh "$(dirname "$0")/t-readme.sh" --live
