fn prime_factors(number_value: i64) -> Vec<i64> {
    let mut factors = Vec::new();
    let mut remaining = number_value;
    let mut d = 2;
    while d * d <= remaining {
        while remaining % d == 0 {
            factors.push(d);
            remaining /= d;
        }
        d += if d == 2 { 1 } else { 2 };
    }
    if remaining > 1 {
        factors.push(remaining);
    }
    factors
}
