use std::collections::HashMap;

fn group_by_length(word_list: Vec<String>) -> HashMap<i64, Vec<String>> {
    let mut groups: HashMap<i64, Vec<String>> = HashMap::new();
    for word in word_list {
        groups.entry(word.chars().count() as i64).or_default().push(word);
    }
    groups
}
