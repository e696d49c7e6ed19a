#include <unordered_map>
#include <vector>

std::vector<long long> two_sum(const std::vector<long long>& nums, long long target) {
    std::unordered_map<long long, long long> seen;
    for (long long i = 0; i < (long long)nums.size(); i++) {
        auto it = seen.find(target - nums[i]);
        if (it != seen.end()) return {it->second, i};
        seen[nums[i]] = i;
    }
    return {};
}
