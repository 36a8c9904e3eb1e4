use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Confirm(bool);

fn main() {}
