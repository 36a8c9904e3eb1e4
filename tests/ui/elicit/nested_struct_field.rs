use serde::Deserialize;

#[derive(Deserialize)]
struct Address {
    street: String,
    city: String,
}

#[derive(Deserialize, mrtr::Elicit)]
struct Signup {
    name: String,
    address: Address,
}

fn main() {}
