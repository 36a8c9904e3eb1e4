// The helper attribute takes no arguments and lowers only an `async fn`.
use mrtr::{ask, mrtr_helper};

#[derive(serde::Serialize, serde::Deserialize, mrtr::Elicit)]
struct Confirmation {
    confirmed: bool,
}

#[mrtr_helper(shared)]
async fn with_arguments() -> bool {
    ask!(confirm: elicit::<Confirmation>("go?")).is_accept()
}

#[mrtr_helper]
fn not_async() -> bool {
    true
}

#[mrtr_helper]
struct NotAFunction;

fn main() {}
