#!/usr/bin/env python3
"""Where the REPL's resident memory is after one answer, mapping by mapping.

Why: `reception-bench` gives one figure (peak RSS); when it moves, this says which part moved:
the binary's code (`reception r-xp`), a shared library's (SQLite's text is mapped whole by its
first statements on this kernel), the heap and thread arenas (`[anon]`). Run it on two
binaries and compare.

How: starts the REPL on a pseudo-terminal in a fresh home (as `reception-bench` does), sends
one message, waits for the answer, and prints /proc/PID/status's RSS lines and the resident
kilobytes of each mapping (summed by file and permissions), largest first.

Usage (a development tool):
    python3 scripts/rss-breakdown.py .build/release/reception [REPL OPTIONS…]
    python3 scripts/rss-breakdown.py OTHER/reception --no-log
"""
import collections, os, pty, re, select, shutil, sys, tempfile, time

binary = sys.argv[1] if len(sys.argv) > 1 else ".build/release/reception"
extra = sys.argv[2:]
home = tempfile.mkdtemp(prefix="rss-breakdown-")
environment = {"HOME": home, "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
               "TERM": "xterm-256color", "LANG": "C.UTF-8"}
prompt = "›".encode()
pid, fd = pty.fork()
if pid == 0:
    os.execve(binary, [binary, "--no-history", "--trust", "1", "--local-step-ms", "0"] + extra, environment)
seen = b""


def wait_until(done, seconds=20):
    global seen
    deadline = time.time() + seconds
    while time.time() < deadline:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                return False
        if done(seen):
            return True
    return False


try:
    if not wait_until(lambda b: prompt in b):
        sys.exit("rss-breakdown: no prompt within 20 s")
    prompts = seen.count(prompt)
    os.write(fd, b"what can reception do?\r")
    if not wait_until(lambda b: b.count(prompt) > prompts):
        sys.exit("rss-breakdown: no answer within 20 s")
    time.sleep(1)  # the answer's last writes
    status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status"))
    print(" ".join(f"{key} {status[key].strip()}" for key in ("VmHWM", "VmRSS", "RssAnon", "RssFile")))
    resident = collections.Counter()
    key = None
    for line in open(f"/proc/{pid}/smaps"):
        fields = line.split()
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            key = (os.path.basename(fields[5]) if len(fields) > 5 else "[anon]", fields[1])
        elif fields[0] == "Rss:":
            resident[key] += int(fields[1])
    for (name, permissions), kilobytes in resident.most_common():
        if kilobytes >= 64:
            print(f"{kilobytes:8d} kB  {name} {permissions}")
finally:
    try:
        os.write(fd, b"/quit\r")
        wait_until(lambda b: False, 2)
    except OSError:
        pass
    shutil.rmtree(home, ignore_errors=True)
