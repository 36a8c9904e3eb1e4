use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
enum Nothing {}

fn main() {}
