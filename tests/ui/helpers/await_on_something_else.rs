// `.await` inside `ask!` enters a helper; a future that is not a helper call is not one.
use mrtr::{ask, mrtr_helper};

async fn fetch() -> u32 {
    7
}

#[mrtr_helper]
async fn total() -> u32 {
    let future = fetch();
    ask!(value: future.await)
}

fn main() {}
