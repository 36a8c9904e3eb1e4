use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Point {
    coordinates: (f64, f64),
}

fn main() {}
