use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Order {
    #[elicit(default = "three")]
    quantity: u32,
    #[elicit(default = true)]
    note: String,
}

fn main() {}
