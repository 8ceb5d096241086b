//! Placeholder: the golden-model benchmark (issue 4) goes here.
fn main() {}
