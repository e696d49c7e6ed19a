"""A program's standard input and output joined, through the judge, to another program's
(an interactive problem: the candidate and the interactor, each in a worker of its own).

A test whose spec says ``"relay": true`` runs its program with a pipe on each of standard
input and output. The worker moves bytes between those pipes and its channel to the judge,
which joins the two workers of one interaction:

worker -> judge (``{"event": "relay", "op": ...}``)
  ``started``: the program runs; ``data`` (``b64``: at most ``CHUNK`` bytes the program
  wrote; no more is read from it until the judge says ``ack``); ``ack``: a chunk sent here
  was written into the program's input; ``exit``: the program ended (sent before its
  ``eof``, so the other side never sees the end of its input before the judge knows who
  ended first); ``eof``: its output ended; ``closed``: it closed its input (what it was sent
  goes nowhere).
judge -> worker (``{"relay": ...}``)
  ``data`` / ``ack`` / ``eof`` (the other side's output ended: close the program's input
  after what is pending) / ``close`` (nobody reads the program's output any more) / ``kill``
  (the interaction is over: stop the program) / ``done`` (the judge sends nothing more for
  this test; the channel carries jobs again).

At most one chunk is in flight each way, so neither the judge nor a worker holds more than
``CHUNK`` bytes of a program's output: a program that never reads blocks on a full pipe, as
it would on a direct one, and its limits end it. The program's limits are enforced by the
usual supervision (``supervise``) in the worker's main thread; the threads here only move
bytes and never outlive the test.
"""

import base64
import errno
import json
import os
import select
import signal
import threading

#: bytes of a program's output in one relay message
CHUNK = 32 * 1024
#: seconds the worker waits for the judge's last word after its program ended
FINISH_S = 10.0
#: seconds the output of a program that ended may take to drain to the judge
DRAIN_S = 2.0


class Relay:
    def __init__(self, channel, pid, to_child, from_child):
        self.channel = channel
        self.pid = pid
        self.to_child = to_child          # write end of the program's standard input
        self.from_child = from_child      # read end of its standard output
        self.lock = threading.Lock()
        self.credit = threading.Event()   # the judge took the last chunk
        self.credit.set()
        self.closed_out = threading.Event()  # nobody reads the program's output any more
        self.exited = threading.Event()
        self.done = threading.Event()
        self.stop_r, self.stop_w = os.pipe2(os.O_CLOEXEC)
        self.pending = []                 # chunks for the program's input (at most one)
        self.pending_eof = False
        self.have_input = threading.Condition()
        os.set_blocking(to_child, False)
        self.threads = [threading.Thread(target=f, daemon=True)
                        for f in (self._read_channel, self._write_child, self._read_child,
                                  self._wait_exit)]

    # ---- to the judge -------------------------------------------------------------------
    def send(self, op, **fields):
        fields.update(event="relay", op=op)
        line = (json.dumps(fields, separators=(",", ":")) + "\n").encode()
        with self.lock:
            self.channel._write(line)

    def start(self):
        self.send("started")
        for thread in self.threads:
            thread.start()

    # ---- threads --------------------------------------------------------------------------
    def _read_channel(self):
        """The judge's messages for this test, until ``done``."""
        while True:
            line = self.channel.inp.readline()
            if not line:  # the judge is gone: the worker ends after this test anyway
                self._stop_all()
                self.done.set()
                return
            try:
                message = json.loads(line)
            except ValueError:
                continue
            op = message.get("relay") if isinstance(message, dict) else None
            if op == "data":
                try:
                    data = base64.b64decode(message.get("b64") or "")
                except (ValueError, TypeError):
                    data = b""
                with self.have_input:
                    self.pending.append(data)
                    self.have_input.notify()
            elif op == "ack":
                self.credit.set()
            elif op == "eof":
                with self.have_input:
                    self.pending_eof = True
                    self.have_input.notify()
            elif op == "close":
                self.closed_out.set()
                self.credit.set()
            elif op == "kill":
                try:
                    os.killpg(self.pid, signal.SIGKILL)
                except OSError:
                    pass
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except OSError:
                    pass
            elif op == "done":
                self._stop_all()
                self.done.set()
                return

    def _stop_all(self):
        self.closed_out.set()
        self.credit.set()
        try:
            os.write(self.stop_w, b"x")
        except OSError:
            pass
        with self.have_input:
            self.pending_eof = True
            self.have_input.notify_all()

    def _write_child(self):
        """What the other side wrote, into the program's input (never blocking the worker:
        a program that does not read holds one chunk here and the judge holds nothing)."""
        broken = False
        while True:
            with self.have_input:
                while not self.pending and not self.pending_eof:
                    self.have_input.wait()
                data = self.pending.pop(0) if self.pending else None
                eof = self.pending_eof and not self.pending and data is None
            if eof:
                break
            view = memoryview(data)
            while view and not broken:
                ready = select.select([self.stop_r], [self.to_child], [])
                if self.stop_r in ready[0]:
                    broken = True
                    break
                try:
                    view = view[os.write(self.to_child, view[:CHUNK]):]
                except BlockingIOError:
                    continue
                except OSError as exc:
                    if exc.errno != errno.EPIPE:
                        raise
                    broken = True
                    self.send("closed")
            if not self.done.is_set():
                self.send("ack")  # what it does not read is gone, as from a closed pipe
        try:
            os.close(self.to_child)
        except OSError:
            pass

    def _read_child(self):
        """What the program writes, to the judge, one chunk at a time."""
        while True:
            ready = select.select([self.from_child, self.stop_r], [], [])[0]
            if self.from_child not in ready:
                break
            try:
                data = os.read(self.from_child, CHUNK)
            except OSError:
                data = b""
            if not data:
                break
            self.credit.wait()
            if self.closed_out.is_set():
                break  # nobody reads it: the program gets EPIPE once this end is closed
            self.credit.clear()
            self.send("data", b64=base64.b64encode(data).decode("ascii"))
        self.closed_out.set()
        try:
            os.close(self.from_child)
        except OSError:
            pass
        # the end of the output only once the program has ended: who ended first is known
        # before the other side can react to this end (problemtools' interactive runner
        # keeps the pipe open until then for the same reason)
        while not self.exited.wait(0.05):
            if self.done.is_set():
                return
        if not self.done.is_set():
            self.send("eof")

    def _wait_exit(self):
        try:
            pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            pidfd = None
        if pidfd is not None:
            try:
                select.select([pidfd, self.stop_r], [], [])
            finally:
                os.close(pidfd)
        else:  # no pidfd: poll for the zombie without reaping it
            while not self.done.is_set():
                try:
                    with open("/proc/%d/stat" % self.pid) as handle:
                        if handle.read().rsplit(")", 1)[-1].split()[0] in ("Z", "X"):
                            break
                except OSError:
                    break
                if select.select([self.stop_r], [], [], 0.01)[0]:
                    break
        if not self.done.is_set():
            self.send("exit")
        self.exited.set()

    # ---- the end ----------------------------------------------------------------------------
    def finish(self):
        """After the program and everything it left were stopped: let the output drain to
        the judge, then wait for its ``done`` (bounded: a judge that says nothing more is
        gone, and this worker's job ends with it)."""
        self.exited.set()
        self.threads[2].join(DRAIN_S)
        self.send("ended")
        self.done.wait(FINISH_S)
        self._stop_all()
        for thread in self.threads:
            thread.join(1.0)
        for fd in (self.stop_r, self.stop_w):
            os.close(fd)


def relay_pipes():
    """(the child's stdin, the worker's end of it, the worker's end of its stdout, the
    child's stdout): two pipes, the worker's ends close-on-exec."""
    in_r, in_w = os.pipe2(os.O_CLOEXEC)
    out_r, out_w = os.pipe2(os.O_CLOEXEC)
    return in_r, in_w, out_r, out_w


__all__ = ["CHUNK", "Relay", "relay_pipes"]
