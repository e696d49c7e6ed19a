use std::collections::HashMap;

fn word_count(input_text: String) -> HashMap<String, i64> {
    let mut counts = HashMap::new();
    for word in input_text.to_lowercase().split_whitespace() {
        *counts.entry(word.to_string()).or_insert(0) += 1;
    }
    counts
}
