use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Contact {
    #[elicit(placeholder = "you@example.com")]
    email: String,
}

fn main() {}
