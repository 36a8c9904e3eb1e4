use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Order {
    #[elicit(min = 10, max = 1)]
    quantity: u32,
    #[elicit(min_length = 8, max_length = 4)]
    code: String,
    #[elicit(min = 1, max = 5, default = 9)]
    priority: u8,
}

fn main() {}
