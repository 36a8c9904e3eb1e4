use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
enum Target {
    Staging,
    Custom(String),
}

fn main() {}
