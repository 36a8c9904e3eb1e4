use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Contact {
    #[elicit(title = "Email", title = "E-mail")]
    email: String,
}

fn main() {}
