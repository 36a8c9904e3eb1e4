use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Order {
    #[elicit(min = 1)]
    note: String,
}

fn main() {}
