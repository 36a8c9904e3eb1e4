use std::collections::HashMap;

use serde::Deserialize;

#[derive(Deserialize, mrtr::Elicit)]
struct Labels {
    labels: HashMap<String, String>,
}

fn main() {}
