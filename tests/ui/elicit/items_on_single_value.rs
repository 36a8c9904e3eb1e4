use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Order {
    #[elicit(min_items = 1)]
    note: String,
}

fn main() {}
