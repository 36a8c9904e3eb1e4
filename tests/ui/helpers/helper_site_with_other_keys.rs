// A helper site shares its `ask!` with a client request: the helper's round and the request's
// would be one step, which a frame cannot describe.
use mrtr::{Answer, ask, mrtr_helper};

#[derive(serde::Serialize, serde::Deserialize, mrtr::Elicit)]
struct Confirmation {
    confirmed: bool,
}

#[mrtr_helper]
async fn confirm(message: String) -> bool {
    let answer = ask!(confirm: elicit::<Confirmation>(message));
    matches!(answer, Answer::Accept(Confirmation { confirmed: true }))
}

#[mrtr_helper]
async fn both() -> bool {
    let (gate, other) = ask!(gate: confirm("go?".into()).await, other: elicit::<Confirmation>("and?"));
    gate && other.is_accept()
}

fn main() {}
