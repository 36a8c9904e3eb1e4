// An `ask!` inside a closure in a helper: the closure's body is not the helper's, so the
// lowering cannot split it.
use mrtr::{ask, mrtr_helper};

#[derive(serde::Serialize, serde::Deserialize, mrtr::Elicit)]
struct Confirmation {
    confirmed: bool,
}

#[mrtr_helper]
async fn confirm_all(items: Vec<String>) -> usize {
    let asks: Vec<_> = items
        .iter()
        .map(|item| ask!(confirm: elicit::<Confirmation>(item.clone())))
        .collect();
    asks.len()
}

fn main() {}
