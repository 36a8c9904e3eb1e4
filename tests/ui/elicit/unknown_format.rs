use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Contact {
    #[elicit(format = "phone")]
    phone: String,
}

fn main() {}
