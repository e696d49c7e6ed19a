#include <algorithm>
#include <vector>

long long max_subarray_sum(const std::vector<long long>& nums) {
    long long best = nums[0], current = nums[0];
    for (size_t i = 1; i < nums.size(); i++) {
        current = std::max(nums[i], current + nums[i]);
        best = std::max(best, current);
    }
    return best;
}
