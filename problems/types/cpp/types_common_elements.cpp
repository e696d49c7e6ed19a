#include <set>
#include <vector>

std::set<long long> common_elements(const std::vector<long long>& first_nums,
                                    const std::vector<long long>& second_nums) {
    std::set<long long> first(first_nums.begin(), first_nums.end()), out;
    for (long long x : second_nums) if (first.count(x)) out.insert(x);
    return out;
}
