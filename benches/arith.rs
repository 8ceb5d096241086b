//! Placeholder: the reference-arithmetic benchmark (issue 3) goes here.
fn main() {}
