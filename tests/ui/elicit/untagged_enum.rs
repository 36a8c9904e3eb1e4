use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
#[serde(untagged)]
enum Choice {
    Yes,
    No,
}

fn main() {}
