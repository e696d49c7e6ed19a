#include <vector>

std::vector<long long> prime_factors(long long number_value) {
    std::vector<long long> factors;
    long long remaining = number_value;
    for (long long d = 2; d * d <= remaining; d += (d == 2 ? 1 : 2)) {
        while (remaining % d == 0) { factors.push_back(d); remaining /= d; }
    }
    if (remaining > 1) factors.push_back(remaining);
    return factors;
}
