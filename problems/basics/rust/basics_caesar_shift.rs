fn caesar_shift(message: String, shift: i64) -> String {
    let k = shift.rem_euclid(26) as u8;
    message
        .chars()
        .map(|ch| match ch {
            'a'..='z' => ((ch as u8 - b'a' + k) % 26 + b'a') as char,
            'A'..='Z' => ((ch as u8 - b'A' + k) % 26 + b'A') as char,
            _ => ch,
        })
        .collect()
}
