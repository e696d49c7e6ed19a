"""Writes problems.jsonl, solutions.jsonl and grades.jsonl of the shipped proof-grading example.

The problems are classics in our own wording; the references and the graded attempts are
written for this example (grades follow the 0-7 scale of the RefGrader paper, set by hand).
Kept as a script so the data is readable and diffable in one place.
"""

import json
from pathlib import Path

HERE = Path(__file__).parent

PROBLEMS = [
    {"problem_id": "cubes", "topic": "N",
     "statement": "Prove that n^3 - n is divisible by 6 for every integer n.",
     "references": [
         "Write n^3 - n = (n - 1) n (n + 1). These are three consecutive integers. Among any two consecutive integers one is even, so the product is divisible by 2. Among any three consecutive integers one is a multiple of 3, so the product is divisible by 3. Since 2 and 3 are coprime, the product is divisible by 6.",
         "Induction on n >= 0. For n = 0 the value is 0. Suppose 6 divides n^3 - n. Then (n + 1)^3 - (n + 1) - (n^3 - n) = 3n^2 + 3n = 3n(n + 1). The product n(n + 1) of consecutive integers is even, so 3n(n + 1) is divisible by 6, and so is (n + 1)^3 - (n + 1). Negative n follow because n^3 - n is an odd function of n.",
         "Nice one, I think this was on a regional olympiad years ago?",
         "Work modulo 2 and modulo 3. Modulo 2, n^3 is congruent to n since n is 0 or 1. Modulo 3, check the residues 0, 1, 2: the cubes are 0, 1, 8 = 2, so n^3 is congruent to n modulo 3 as well (Fermat). Hence 2 and 3 both divide n^3 - n, and so does 6."]},
    {"problem_id": "sqrt2", "topic": "N",
     "statement": "Prove that the square root of 2 is irrational.",
     "references": [
         "Suppose sqrt(2) = p/q with integers p, q > 0 and the fraction in lowest terms. Squaring gives p^2 = 2 q^2, so p^2 is even and therefore p is even, p = 2r. Then 4 r^2 = 2 q^2, so q^2 = 2 r^2 and q is even too. Both even contradicts lowest terms, so sqrt(2) is irrational.",
         "Suppose p^2 = 2 q^2 with positive integers p, q. Count the exponent of 2 in the prime factorisation of each side. On the left it is even (twice the exponent in p); on the right it is odd (one more than twice the exponent in q). By unique factorisation the two sides cannot be equal, a contradiction."]},
    {"problem_id": "square5", "topic": "C",
     "statement": "Five points lie in a square of side 1. Prove that two of them are at distance at most sqrt(2)/2.",
     "references": [
         "Cut the square into four squares of side 1/2 by joining midpoints of opposite sides. By the pigeonhole principle two of the five points lie in the same small square (a point on a boundary belongs to any of the squares containing it). The largest distance between two points of a square of side 1/2 is its diagonal, sqrt(2)/2, so these two points are at distance at most sqrt(2)/2.",
         "Split the unit square into four closed smaller squares of side 1/2. Five points and four squares: pigeonhole gives two points in one small square. The diameter of a small square equals its diagonal sqrt(1/4 + 1/4) = sqrt(2)/2, which bounds the distance of the two points."]},
    {"problem_id": "amgm3", "topic": "A",
     "statement": "Prove that (a + b)(b + c)(c + a) >= 8abc for all positive reals a, b, c, and find when equality holds.",
     "references": [
         "By AM-GM, a + b >= 2 sqrt(ab), b + c >= 2 sqrt(bc) and c + a >= 2 sqrt(ca). All terms are positive, so multiplying the three inequalities gives (a + b)(b + c)(c + a) >= 8 sqrt(a^2 b^2 c^2) = 8abc. Equality in AM-GM needs a = b, b = c and c = a, so equality holds exactly when a = b = c.",
         "Expand: (a + b)(b + c)(c + a) - 8abc = a^2 b + a^2 c + b^2 a + b^2 c + c^2 a + c^2 b - 6abc = a (b - c)^2 + b (c - a)^2 + c (a - b)^2. Each term is non-negative because a, b, c are positive, so the difference is at least 0. It is 0 exactly when b = c, c = a and a = b, that is a = b = c."]},
    {"problem_id": "primes43", "topic": "N",
     "statement": "Prove that there are infinitely many primes of the form 4k + 3.",
     "references": [
         "Suppose p1, ..., pk are all the primes of the form 4k + 3. Let N = 4 p1 p2 ... pk - 1. N is odd and N is congruent to 3 modulo 4. A product of numbers congruent to 1 modulo 4 is congruent to 1 modulo 4, so N has a prime factor q congruent to 3 modulo 4. But q is not any pi, since N leaves remainder -1 when divided by pi. This contradicts the assumption, so there are infinitely many such primes.",
         "Assume finitely many primes 3 = p1, p2, ..., pk are congruent to 3 modulo 4 and set N = 4 p2 ... pk + 3. Then N is odd and congruent to 3 modulo 4, so not all of its prime factors are congruent to 1 modulo 4: some prime factor q is congruent to 3 modulo 4. q is not 3, since 3 does not divide 4 p2 ... pk, and q is not any other pi because pi divides N - 3 but not 3. Contradiction."]},
]

# (solution_id, problem_id, human grade 0-7, solution text)
SOLUTIONS = [
    ("cubes-a", "cubes", 7, "We factor n^3 - n = (n-1)n(n+1), a product of three consecutive integers. One of any two consecutive integers is even, so 2 divides it. One of any three consecutive integers is divisible by 3, so 3 divides it. As gcd(2, 3) = 1, 6 divides n^3 - n."),
    ("cubes-b", "cubes", 5, "Induction. For n = 0 we get 0, divisible by 6. Assume 6 | n^3 - n. Then (n+1)^3 - (n+1) = n^3 - n + 3n^2 + 3n = (n^3 - n) + 3n(n+1). Since n(n+1) is even, 3n(n+1) is divisible by 6, so the claim holds for n + 1. This proves it for all n."),
    ("cubes-c", "cubes", 3, "n^3 - n = (n-1)n(n+1) is a product of three consecutive integers, so one of them is divisible by 3. Hence 3 divides n^3 - n. Divisibility by 2 is similar, so 6 divides it."),
    ("cubes-d", "cubes", 1, "Check: n = 2 gives 6, n = 3 gives 24, n = 4 gives 60, all divisible by 6. The factorisation n(n^2 - 1) shows the pattern continues, so it is always divisible by 6."),
    ("cubes-e", "cubes", 0, "n^3 - n is always even because n^3 and n have the same parity, and any even number is divisible by 6."),
    ("sqrt2-a", "sqrt2", 7, "Assume sqrt(2) = p/q in lowest terms with p, q positive integers. Then p^2 = 2q^2, so p^2 is even, and since the square of an odd number is odd, p is even, p = 2r. Substituting, 4r^2 = 2q^2, so q^2 = 2r^2 and q is even. Then p and q share the factor 2, contradicting lowest terms."),
    ("sqrt2-b", "sqrt2", 6, "If sqrt(2) = p/q in lowest terms then p^2 = 2q^2 so p is even, p = 2r, which gives q^2 = 2 r^2, so q is even. Contradiction with lowest terms."),
    ("sqrt2-c", "sqrt2", 2, "Suppose sqrt(2) = p/q. Then p^2 = 2q^2. So p^2 is even. I am not sure how to continue from here but this should lead to a contradiction."),
    ("sqrt2-d", "sqrt2", 0, "sqrt(2) = 1.41421356... and the decimals never repeat, as a calculator shows, so it is irrational."),
    ("square5-a", "square5", 7, "Divide the square into four squares of side 1/2 by the lines joining midpoints of opposite sides. By pigeonhole, two of the five points are in the same small square (boundary points may be assigned to either). Any two points of a square of side 1/2 are at distance at most its diagonal sqrt(2)/2. Done."),
    ("square5-b", "square5", 4, "Split the unit square into four small squares of side 1/2. By the pigeonhole principle two points lie in one small square, so they are close to each other."),
    ("square5-c", "square5", 1, "Place four points at the corners and one at the centre: the centre is at distance sqrt(2)/2 from every corner. So the bound is attained and two points are always at distance at most sqrt(2)/2."),
    ("square5-d", "square5", 0, "The diagonal of the unit square is sqrt(2), and half of it is sqrt(2)/2. Since there are five points, the average distance is small, so two points are close."),
    ("amgm3-a", "amgm3", 7, "AM-GM gives a + b >= 2 sqrt(ab), b + c >= 2 sqrt(bc), c + a >= 2 sqrt(ca). All sides are positive, so we may multiply: (a+b)(b+c)(c+a) >= 8 sqrt(a^2 b^2 c^2) = 8abc. Equality in each AM-GM requires a = b, b = c, c = a, so equality holds iff a = b = c."),
    ("amgm3-b", "amgm3", 5, "By AM-GM, a + b >= 2 sqrt(ab), b + c >= 2 sqrt(bc) and c + a >= 2 sqrt(ca). Multiplying gives (a+b)(b+c)(c+a) >= 8abc. Equality when a = b = c."),
    ("amgm3-c", "amgm3", 3, "Expand (a+b)(b+c)(c+a) = a^2 b + a^2 c + b^2 a + b^2 c + c^2 a + c^2 b + 2abc. So we need a^2 b + a^2 c + b^2 a + b^2 c + c^2 a + c^2 b >= 6abc, which is true by symmetry. Equality for a = b = c."),
    ("amgm3-d", "amgm3", 2, "For a = b = c = 1 both sides equal 8, and for a = 1, b = 2, c = 3 the left side is 60 >= 48. Equality holds when a = b = c; the inequality follows from AM-GM."),
    ("amgm3-e", "amgm3", 0, "(a+b)(b+c)(c+a) = 8abc because each factor equals 2 times a variable, so the inequality is an equality."),
    ("primes43-a", "primes43", 7, "Suppose only finitely many primes p1, ..., pk are 3 mod 4. Let N = 4 p1 ... pk - 1. Then N is odd and N = 3 mod 4. If every prime factor of N were 1 mod 4, N would be 1 mod 4, since products of numbers that are 1 mod 4 are 1 mod 4. So some prime q = 3 mod 4 divides N. But each pi divides N + 1, so q is not any pi. Contradiction."),
    ("primes43-b", "primes43", 4, "Assume finitely many primes p1, ..., pk of the form 4k + 3 and let N = 4 p1 ... pk - 1. N is 3 mod 4, so N has a prime factor q of the form 4k + 3. This q must be one of the pi, and we get a contradiction."),
    ("primes43-c", "primes43", 2, "A product of numbers of the form 4k + 1 is again of the form 4k + 1. So a number of the form 4k + 3 has a prime factor of the form 4k + 3. Therefore there are infinitely many such primes."),
    ("primes43-d", "primes43", 0, "The primes 3, 7, 11, 19, 23, 31, 43 are all of the form 4k + 3 and they keep appearing, so there are infinitely many."),
]


def main() -> None:
    with (HERE / "problems.jsonl").open("w") as fh:
        for p in PROBLEMS:
            fh.write(json.dumps(p) + "\n")
    with (HERE / "solutions.jsonl").open("w") as fh, (HERE / "grades.jsonl").open("w") as gh:
        for sid, pid, g, text in SOLUTIONS:
            fh.write(json.dumps({"problem_id": pid, "solution_id": sid, "solution": text}) + "\n")
            gh.write(json.dumps({"solution_id": sid, "grade": g}) + "\n")


if __name__ == "__main__":
    main()
