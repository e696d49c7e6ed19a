fn merge_intervals(intervals: Vec<Vec<i64>>) -> Vec<Vec<i64>> {
    let mut sorted = intervals.clone();
    sorted.sort();
    let mut merged: Vec<Vec<i64>> = Vec::new();
    for iv in sorted {
        if let Some(last) = merged.last_mut() {
            if iv[0] <= last[1] {
                last[1] = last[1].max(iv[1]);
                continue;
            }
        }
        merged.push(vec![iv[0], iv[1]]);
    }
    merged
}
