fn main() {
    println!("500");
    let v: Vec<i32> = Vec::new();
    println!("{}", v[3]);
}
