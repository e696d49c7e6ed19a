#include <tuple>
#include <vector>

std::tuple<std::vector<long long>, std::vector<long long>> split_even_odd(const std::vector<long long>& nums) {
    std::vector<long long> evens, odds;
    for (long long v : nums) (v % 2 == 0 ? evens : odds).push_back(v);
    return {evens, odds};
}
