use std::collections::HashSet;

fn common_elements(first_nums: Vec<i64>, second_nums: Vec<i64>) -> HashSet<i64> {
    let first: HashSet<i64> = first_nums.into_iter().collect();
    second_nums.into_iter().filter(|x| first.contains(x)).collect()
}
