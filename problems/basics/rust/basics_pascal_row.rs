fn pascal_row(row_index: i64) -> Vec<i64> {
    let mut row = vec![1i64];
    for k in 0..row_index {
        let next = row[row.len() - 1] * (row_index - k) / (k + 1);
        row.push(next);
    }
    row
}
