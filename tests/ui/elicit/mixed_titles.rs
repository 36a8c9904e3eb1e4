use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
enum Size {
    #[elicit(title = "Small")]
    Small,
    Large,
}

fn main() {}
