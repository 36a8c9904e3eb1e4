// A borrowed parameter the helper owns from its call: it is borrowed again inside under its
// name, so it needs one.
use mrtr::{Answer, ask, mrtr_helper};

#[derive(serde::Serialize, serde::Deserialize, mrtr::Elicit)]
struct Confirmation {
    confirmed: bool,
}

#[mrtr_helper]
async fn confirm(&(ref left, ref right): &(String, String)) -> bool {
    let answer = ask!(confirm: elicit::<Confirmation>(format!("{left} or {right}?")));
    matches!(answer, Answer::Accept(Confirmation { confirmed: true }))
}

fn main() {}
