"""The worker protocol's vocabulary: its version and the status of every record a sandbox
worker sends back, defined once for the judge and the worker.

The worker (``runners/python/judge_worker/``) imports this very file: it is linked into the
worker's package (``records.py`` there is a symbolic link to this one) and copied with the
worker wherever it runs, so both sides always speak the same words. It must therefore stay
standard-library only and free of imports from the rest of ``judge``.

A test record's ``status`` says what happened to one test, as the worker saw it; the judge
turns it into a verdict (:mod:`judge.engine.classify`). The other languages' harnesses
(``runners/<language>/``) write the statuses of :data:`HARNESS` themselves, which a test
checks against this vocabulary.
"""

#: the protocol's version: the worker says it at the handshake, the judge checks it
PROTOCOL = 1

# ---- written by the test child (the harness inside the candidate's process) ---------------
RETURNED = "returned"                  # the function returned; "value" holds it as wire data
RAISED = "raised"                      # it raised ("stage": load or call, "exc_type", ...)
MISSING_FUNCTION = "missing_function"  # the module loaded, the function is not in it
UNENCODABLE = "unencodable"            # it returned a value the wire format cannot carry
VALUE_TOO_LARGE = "value_too_large"    # the encoded value is over the value cap
SETUP_ERROR = "setup_error"            # our own set-up of the test failed (before candidate code)

# ---- written by the worker, from what it measured -------------------------------------------
EXITED = "exited"          # the child ended without writing a result
SIGNALED = "signaled"      # the child died of a signal ("signal": its name)
TIMEOUT = "timeout"        # stopped at a time limit ("limit": cpu or wall)
MEMORY = "memory"          # stopped over the memory limit (measured, or the kernel's OOM kill)
MALFORMED = "malformed"    # what the child wrote is not a result record
SPOILED = "spoiled"        # set-up failed after the candidate's earlier tests ran
BUDGET_SPENT = "budget_spent"  # not run: the candidate's time budget was spent

#: what a test child that ran candidate code may report about itself
CHILD = frozenset({RETURNED, RAISED, MISSING_FUNCTION, UNENCODABLE, VALUE_TOO_LARGE})
#: what a harness of any language may write on its result channel
HARNESS = CHILD | {SETUP_ERROR}
#: what the worker decides from its own measurements
WORKER = frozenset({EXITED, SIGNALED, TIMEOUT, MEMORY, MALFORMED, SPOILED, BUDGET_SPENT,
                    VALUE_TOO_LARGE, SETUP_ERROR})
#: every status a test record can have
STATUSES = HARNESS | WORKER

#: a test record's "stage" when it raised
STAGE_LOAD = "load"
STAGE_CALL = "call"
#: a timeout record's "limit"
LIMIT_CPU = "cpu"
LIMIT_WALL = "wall"
#: the status of a compile record whose compiler exited with an error (others: a worker status)
COMPILE_FAILED = "failed"

# ---- a compile command the worker runs itself ------------------------------------------------
#: a Python program's syntax check, done in the forked compile child by the interpreter that
#: runs the program (``in_worker``), as ``python3 -c 'compile(...)'`` would, without starting
#: an interpreter per candidate: ``[SYNTAX_CHECK, file, ...]``
SYNTAX_CHECK = "@python-syntax-check"
