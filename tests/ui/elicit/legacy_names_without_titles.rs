use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
#[elicit(legacy_enum_names)]
enum Size {
    Small,
    Large,
}

fn main() {}
