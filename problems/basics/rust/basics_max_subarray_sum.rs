fn max_subarray_sum(nums: &[i64]) -> i64 {
    let mut best = nums[0];
    let mut current = nums[0];
    for &v in &nums[1..] {
        current = v.max(current + v);
        best = best.max(current);
    }
    best
}
