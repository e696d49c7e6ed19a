fn main() {
    panic!("no");
}
