fn split_even_odd(nums: Vec<i64>) -> (Vec<i64>, Vec<i64>) {
    nums.into_iter().partition(|v| v % 2 == 0)
}
