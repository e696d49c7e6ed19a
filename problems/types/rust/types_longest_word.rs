fn longest_word(input_text: &str) -> (i64, String) {
    let mut best = "";
    for word in input_text.split_whitespace() {
        if word.chars().count() > best.chars().count() {
            best = word;
        }
    }
    (best.chars().count() as i64, best.to_string())
}
