use serde::Deserialize;

#[derive(Deserialize)]
struct Common {
    name: String,
}

#[derive(Deserialize, mrtr::Elicit)]
struct Signup {
    #[serde(flatten)]
    common: Common,
    email: String,
}

fn main() {}
