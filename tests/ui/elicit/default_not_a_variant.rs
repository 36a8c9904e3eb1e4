use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
}

#[derive(Deserialize, mrtr::Elicit)]
struct Account {
    #[elicit(default = "Active")]
    status: Status,
}

fn main() {}
