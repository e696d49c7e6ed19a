use std::io::{self, BufRead, Write};

fn main() {
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let (mut lo, mut hi) = (1, 1000);
    loop {
        let mid = (lo + hi) / 2;
        println!("{}", mid);
        io::stdout().flush().unwrap();
        let reply = match lines.next() { Some(Ok(l)) => l, _ => return };
        match reply.trim() {
            "correct" => return,
            "lower" => hi = mid - 1,
            _ => lo = mid + 1,
        }
    }
}
