use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Order {
    #[elicit(max_length = 3)]
    quantity: u32,
}

fn main() {}
