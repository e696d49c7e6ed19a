#include <algorithm>
#include <tuple>
#include <vector>

std::tuple<double, double, double> min_max_mean(const std::vector<double>& values) {
    double lo = *std::min_element(values.begin(), values.end());
    double hi = *std::max_element(values.begin(), values.end());
    long double sum = 0;
    for (double v : values) sum += v;
    return {lo, hi, (double)(sum / values.size())};
}
