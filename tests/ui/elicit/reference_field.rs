use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Borrowed<'a> {
    name: &'a str,
}

fn main() {}
