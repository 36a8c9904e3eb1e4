use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Rgb {
    channels: [u8; 3],
}

fn main() {}
