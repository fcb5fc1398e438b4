#!/usr/bin/env python3
"""Time from QEMU start to a console line, for the boot benchmark.

usage: boot-time.py MARKER TIMEOUT -- QEMU-ARGS...
Prints the seconds until MARKER appeared on QEMU's stdout, or "fail".
QEMU is killed (its own process group) when it has not exited by then.
"""
import os
import select
import signal
import subprocess
import sys
import time


def main():
    marker, timeout = sys.argv[1].encode(), float(sys.argv[2])
    args = sys.argv[4:] if sys.argv[3] == "--" else sys.argv[3:]
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    buf, found = b"", None
    try:
        while found is None and time.monotonic() - t0 < timeout:
            r, _, _ = select.select([p.stdout], [], [], 0.05)
            if not r:
                continue
            data = os.read(p.stdout.fileno(), 65536)
            if not data:
                break
            buf += data
            if marker in buf:
                found = time.monotonic() - t0
        # let the guest finish (it reboots; -no-reboot ends QEMU)
        end = time.monotonic() + timeout
        while p.poll() is None and time.monotonic() < end:
            r, _, _ = select.select([p.stdout], [], [], 0.05)
            if r and not os.read(p.stdout.fileno(), 65536):
                break
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    print("%.3f" % found if found is not None else "fail")


if __name__ == "__main__":
    main()
