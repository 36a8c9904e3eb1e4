use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
#[elicit(title = "Contact details")]
struct Contact {
    email: String,
}

fn main() {}
