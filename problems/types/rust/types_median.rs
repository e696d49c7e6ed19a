fn median_or_none(values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut s = values.clone();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mid = s.len() / 2;
    Some(if s.len() % 2 == 1 { s[mid] } else { (s[mid - 1] + s[mid]) / 2.0 })
}
