use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
enum Size {
    Small,
    Large,
}

fn main() {
    let _ = mrtr::elicit::<Size>("Which size?");
}
