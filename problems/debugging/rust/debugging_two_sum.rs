use std::collections::HashMap;

fn two_sum(nums: Vec<i64>, target: i64) -> Vec<i64> {
    let mut seen: HashMap<i64, i64> = HashMap::new();
    for (i, &v) in nums.iter().enumerate() {
        if let Some(&j) = seen.get(&(target - v)) {
            return vec![j, i as i64];
        }
        seen.insert(v, i as i64);
    }
    vec![]
}
