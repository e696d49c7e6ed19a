"""The test child: what runs in the process forked for a test, before and around the
candidate's code. It sets itself up (session, capture, user, rlimits), loads the candidate,
calls its function once and writes one result record to its private pipe. Whatever the
candidate does to this process, nothing here returns into the worker's code.
"""

import json
import os
import resource
import sys

from .records import MISSING_FUNCTION, RAISED, RETURNED, SETUP_ERROR, UNENCODABLE, VALUE_TOO_LARGE
from .system import fresh_keyrings
from .wire import WireError, encode

#: the file name candidate code is compiled under (its traceback lines are the candidate's)
CANDIDATE_FILE = "<candidate>"


def compile_candidate(source):
    """The candidate's code object. A lone surrogate is valid in a Python string but not in
    UTF-8 source text, so ``compile`` refuses source that holds one literally (in a string
    literal a model wrote, say), although Python runs that program: inside a string literal
    it is written as its escape (the same string), and the program compiles. Anywhere else
    (a name, a raw or bytes literal) the error stands."""
    try:
        return compile(source, CANDIDATE_FILE, "exec", dont_inherit=True)
    except UnicodeEncodeError as exc:
        escaped = _escape_surrogate_literals(source)
        if escaped is None:
            raise exc from None
    return compile(escaped, CANDIDATE_FILE, "exec", dont_inherit=True)


def _escape_surrogate_literals(source):
    """``source`` with each lone surrogate inside a (not raw, not bytes) string literal
    written as its ``\\uXXXX`` escape, or None when one is anywhere else."""
    import io  # only here: rare, and every module the worker holds costs each fork
    import tokenize

    lines = source.splitlines(keepends=True)
    edits = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.STRING and _has_surrogate(token.string):
                edits.append(token)
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    for token in reversed(edits):
        prefix = token.string[:len(token.string) - len(token.string.lstrip("rRbBuUfF"))]
        if "r" in prefix.lower() or "b" in prefix.lower():
            return None
        (row, col), (end_row, end_col) = token.start, token.end
        text = "".join(lines[row - 1:end_row])
        end = len(text) - len(lines[end_row - 1]) + end_col
        escaped = "".join("\\u%04x" % ord(c) if 0xD800 <= ord(c) <= 0xDFFF else c
                          for c in text[col:end])
        lines[row - 1:end_row] = [text[:col] + escaped + text[end:]]
    result = "".join(lines)
    return None if _has_surrogate(result) else result


def _has_surrogate(text):
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)

def _candidate_line(tb):
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == CANDIDATE_FILE:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _exception_record(exc, stage):
    record = {
        "status": RAISED,
        "stage": stage,
        "exc_type": _safe_name(exc)[:100],
        "message": _safe_str(exc)[:500],
        "line": _candidate_line(exc.__traceback__),
    }
    if isinstance(exc, ImportError):
        record["import_error"] = True
    return record


def _safe_str(exc):
    try:
        return str(exc)
    except BaseException:
        return "<unprintable %s>" % _safe_name(exc)[:100]


def _safe_name(exc):
    try:
        name = type(exc).__name__
        return name if type(name) is str else "<exception>"
    except BaseException:
        return "<exception>"


def _set_limits(job, test):
    cpu = max(1, int(test["time_limit"] + 1.999))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (job["output_bytes"], job["output_bytes"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    nofile = job.get("nofile", 64)
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    nproc = job.get("_nproc")
    if nproc:
        try:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        except (ValueError, OSError):
            pass


def become_candidate(job, limits, workdir):
    """The last step of every child's setup before candidate code (a function's test or a
    whole program): no supplementary groups, the candidate's uid and gid for good (real,
    effective and saved), its work directory, a private umask and the test's rlimits."""
    uid = job.get("uid")
    if uid is not None:
        os.setgroups([])
        os.setresgid(job["gid"], job["gid"], job["gid"])
        os.setresuid(uid, uid, uid)
        # as that user (its own, never the judge's): nothing an earlier candidate put in
        # its keyrings
        fresh_keyrings()
    os.chdir(workdir)
    os.umask(0o077)
    _set_limits(job, limits)


def _child_setup(job, limits, result_fd, capture_fd, workdir, keep_fd=None):
    """In a forked child, before any candidate code: a session of its own, output into the
    capped capture file, no descriptor but the result pipe, the candidate's user, its work
    directory, and the rlimits. The environment and signal dispositions were set by the
    worker before forking: every page a child writes is a copy-on-write fault, so the child
    does as little as it can."""
    try:
        os.setsid()
        os.dup2(capture_fd, 1)
        os.dup2(capture_fd, 2)
        low = 3
        for fd in sorted({result_fd, keep_fd or result_fd}):
            os.closerange(low, fd)
            low = fd + 1
        os.closerange(low, 1 << 16)
        become_candidate(job, limits, workdir)
    except BaseException as exc:  # our own setup failed: say so, never blame the candidate
        _write(result_fd, {"status": SETUP_ERROR, "message": _safe_str(exc)[:300]})
        os._exit(3)


def _load(code, job, result_fd):
    """Run the candidate's module and find its function by name (never "the last
    callable"); on failure report it and end the child."""
    namespace = {"__name__": "solution", "__builtins__": __builtins__}
    try:
        exec(code, namespace)
    except BaseException as exc:
        _write(result_fd, _exception_record(exc, "load"))
        os._exit(0)
    function = namespace.get(job["function"])
    if not callable(function):
        names = sorted(k for k, v in namespace.items() if callable(v) and not k.startswith("__"))
        _write(result_fd, {"status": MISSING_FUNCTION, "defined": names[:20]})
        os._exit(0)
    return function


def _call(function, args, job, extra=None):
    """Call once and return the serialized result message. The arguments were decoded by
    the worker before the fork: nothing the candidate did to this process can turn them
    into an error of ours."""
    try:
        record = {"status": RETURNED, "value": encode(function(*args))}
    except WireError as exc:
        record = {"status": UNENCODABLE, "message": _safe_str(exc)[:300]}
    except BaseException as exc:
        record = _exception_record(exc, "call")
    _flush_stdio()
    if extra:
        record.update(extra)
    try:
        data = json.dumps(record, separators=(",", ":"), allow_nan=False)
    except BaseException as exc:
        record = {"status": UNENCODABLE, "message": _safe_str(exc)[:300]}
        record.update(extra or {})
        data = json.dumps(record, separators=(",", ":"))
    if len(data) > job["value_bytes"]:
        record = {"status": VALUE_TOO_LARGE, "size": len(data)}
        record.update(extra or {})
        data = json.dumps(record, separators=(",", ":"))
    return data.encode()


#: written by a child once its own setup is done, before any candidate code runs: what
#: follows it in the result pipe comes from a process the candidate controls
CANDIDATE_MARK = b"+"
#: how a result line of a test that returned starts (``_call`` writes it compact)
_RETURNED_LINE = ('{"status":"%s"' % RETURNED).encode()
#: how the line of a test whose call raised starts, up to the exception's name
_RAISED_CALL_LINE = ('{"status":"%s","stage":"call","exc_type":"' % RAISED).encode()
#: exceptions a batch stops at even when told to go past raises: what memory an earlier
#: test left behind may have caused them (a RecursionError cannot be left over: every call
#: starts at the same depth)
STOPPING = ("MemoryError",)


def goes_past(line):
    """Whether a batch told to go past raises (``past_raises``: code that carries no state
    from one call to the next) goes on after this result line: a call that raised anything
    but :data:`STOPPING`."""
    if not line.startswith(_RAISED_CALL_LINE):
        return False
    name = line[len(_RAISED_CALL_LINE):].split(b'"', 1)[0].decode("utf-8", "replace")
    return name not in STOPPING


def run_child(job, test, code, result_fd, capture_fd, workdir, args):
    """One test in its own child: set up, load the candidate, call once, report. Never
    returns into the worker's code, whatever the candidate did to this process."""
    exit_now = os._exit
    try:
        _child_setup(job, test, result_fd, capture_fd, workdir)
        _write_raw(result_fd, CANDIDATE_MARK)
        function = _load(code, job, result_fd)
        _write_raw(result_fd, _call(function, args, job))
    finally:
        exit_now(0)




def run_batch_child(job, total, code, result_fd, capture_fd, workdir, args, ack_fd):
    """Batch mode: every test in this one child, one result line each, stopping at the first
    test that does not return (with ``past_raises``, at the first that does not return nor
    raise, or raises one of :data:`STOPPING`). The judge reruns in a child of its own every
    test that did not pass here, but for the failures of code that carries no state.

    The child keeps no clock of its own (the candidate shares its memory and could rewrite
    it): the worker reads the CPU time of the whole candidate as each result line arrives.
    With ``acks`` (reference timing), the child waits after loading and after each line for
    the worker's acknowledgement on ``ack_fd``, so every test is measured exactly. Without
    (candidates: two fewer context switches per test), a read that finds several lines gives
    each of them the CPU of all of them: an upper bound, never taken as a test's own."""
    exit_now = os._exit
    try:
        _run_batch_tests(job, total, code, result_fd, capture_fd, workdir, args, ack_fd)
    finally:
        exit_now(0)


def _run_batch_tests(job, total, code, result_fd, capture_fd, workdir, args, ack_fd):
    _child_setup(job, total, result_fd, capture_fd, workdir, ack_fd)
    _write_raw(result_fd, CANDIDATE_MARK)
    function = _load(code, job, result_fd)
    _write_raw(result_fd, b"\n")  # loaded: the first test's clock starts here
    acks = job.get("acks", True)
    if acks:
        _await_ack(ack_fd)
    past_raises = bool(job.get("past_raises"))
    for index, test in enumerate(job["tests"]):
        line = _call(function, args[index], job, {"index": index}) + b"\n"
        _write_raw(result_fd, line)
        if not line.startswith(_RETURNED_LINE) and not (past_raises and goes_past(line)):
            break
        if acks:
            _await_ack(ack_fd)
    os._exit(0)


def _await_ack(fd):
    try:
        os.read(fd, 1)
    except OSError:
        pass


def _flush_stdio():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


def _write(fd, record):
    _write_raw(fd, json.dumps(record, separators=(",", ":")).encode())


def _write_raw(fd, data):
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view):]
    except OSError:
        pass

