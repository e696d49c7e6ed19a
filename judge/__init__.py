"""judge: a sandboxed judge for LLM-generated code and answers."""

__version__ = "0.1.0"


def __getattr__(name: str):  # lazy: ``judge.grade_proof`` without importing the grading stack up front
    if name == "grade_proof":
        from judge.grading.proofs.api import grade_proof
        return grade_proof
    raise AttributeError(f"module 'judge' has no attribute {name!r}")
