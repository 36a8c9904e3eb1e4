use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Tags {
    tags: Vec<String>,
}

fn main() {}
