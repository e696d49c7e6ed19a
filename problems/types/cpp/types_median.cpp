#include <algorithm>
#include <optional>
#include <vector>

std::optional<double> median_or_none(std::vector<double> values) {
    if (values.empty()) return std::nullopt;
    std::sort(values.begin(), values.end());
    size_t mid = values.size() / 2;
    if (values.size() % 2) return values[mid];
    return (values[mid - 1] + values[mid]) / 2;
}
