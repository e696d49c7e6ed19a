fn sort_count(values: Vec<i64>) -> (Vec<i64>, i64) {
    if values.len() <= 1 {
        return (values, 0);
    }
    let mid = values.len() / 2;
    let (left, a) = sort_count(values[..mid].to_vec());
    let (right, b) = sort_count(values[mid..].to_vec());
    let mut merged = Vec::with_capacity(values.len());
    let (mut count, mut i, mut j) = (a + b, 0, 0);
    while i < left.len() && j < right.len() {
        if left[i] <= right[j] {
            merged.push(left[i]);
            i += 1;
        } else {
            merged.push(right[j]);
            count += (left.len() - i) as i64;
            j += 1;
        }
    }
    merged.extend_from_slice(&left[i..]);
    merged.extend_from_slice(&right[j..]);
    (merged, count)
}

fn count_inversions(nums: Vec<i64>) -> i64 {
    sort_count(nums).1
}
