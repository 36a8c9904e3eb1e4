// A helper may resume in another request, on another instance: a `&mut` parameter would be a
// borrow of the caller's that no longer exists there.
use mrtr::{Answer, ask, mrtr_helper};

#[derive(serde::Serialize, serde::Deserialize, mrtr::Elicit)]
struct Confirmation {
    confirmed: bool,
}

#[mrtr_helper]
async fn confirm(log: &mut Vec<String>) -> bool {
    let answer = ask!(confirm: elicit::<Confirmation>("go?"));
    log.push("asked".to_owned());
    matches!(answer, Answer::Accept(Confirmation { confirmed: true }))
}

fn main() {}
