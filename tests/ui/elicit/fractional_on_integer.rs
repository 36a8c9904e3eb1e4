use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Order {
    #[elicit(max = 2.5)]
    quantity: u32,
}

fn main() {}
