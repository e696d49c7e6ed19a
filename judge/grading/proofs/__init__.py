"""Proof grading with the RefGrader workflows (single, ref3, ref5-*): see ``workflows``."""

from judge.grading.proofs.api import grade_many, grade_proof
from judge.grading.proofs.engine import Engine, EngineSettings, StepError
from judge.grading.proofs.inputs import ProofProblem, ProofSolution, load_grades, load_problems, load_solutions
from judge.grading.proofs.workflows import WORKFLOWS, Grader, SolutionGrade

__all__ = ["Engine", "EngineSettings", "Grader", "ProofProblem", "ProofSolution", "SolutionGrade", "StepError",
           "WORKFLOWS", "grade_many", "grade_proof", "load_grades", "load_problems", "load_solutions"]
