use serde::Deserialize;

const LIMIT: u32 = 10;

#[derive(Deserialize, mrtr::Elicit)]
struct Order {
    #[elicit(max = LIMIT)]
    quantity: u32,
}

fn main() {}
