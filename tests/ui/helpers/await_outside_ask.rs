// A helper call awaited like a plain future, outside `ask!`: it would run without the lowering
// that lets it end the round, so it does not compile, and the message names the fix.
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

async fn plain_handler() -> bool {
    confirm("go?".to_owned()).await
}

fn main() {
    let _ = plain_handler();
}
