use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Wrapper<T> {
    value: T,
}

fn main() {}
