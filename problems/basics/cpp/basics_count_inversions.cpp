#include <vector>

static long long sort_count(std::vector<long long>& v, int lo, int hi, std::vector<long long>& tmp) {
    if (hi - lo <= 1) return 0;
    int mid = (lo + hi) / 2;
    long long count = sort_count(v, lo, mid, tmp) + sort_count(v, mid, hi, tmp);
    int i = lo, j = mid, k = lo;
    while (i < mid && j < hi) {
        if (v[i] <= v[j]) tmp[k++] = v[i++];
        else { count += mid - i; tmp[k++] = v[j++]; }
    }
    while (i < mid) tmp[k++] = v[i++];
    while (j < hi) tmp[k++] = v[j++];
    for (int x = lo; x < hi; x++) v[x] = tmp[x];
    return count;
}

long long count_inversions(std::vector<long long> nums) {
    std::vector<long long> tmp(nums.size());
    return sort_count(nums, 0, (int)nums.size(), tmp);
}
