fn main() { println!("stub"); }
