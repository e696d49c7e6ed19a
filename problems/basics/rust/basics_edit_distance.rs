fn edit_distance(source_word: &str, target_word: &str) -> i64 {
    let s: Vec<char> = source_word.chars().collect();
    let t: Vec<char> = target_word.chars().collect();
    let mut prev: Vec<i64> = (0..=t.len() as i64).collect();
    for i in 1..=s.len() {
        let mut cur = vec![i as i64; t.len() + 1];
        for j in 1..=t.len() {
            let cost = if s[i - 1] == t[j - 1] { 0 } else { 1 };
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[t.len()]
}
