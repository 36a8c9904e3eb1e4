use mrtr::prelude::*;

async fn not_a_handler() -> Answer<()> {
    ask!(open: elicit_url("Open?", "https://example.com"))
}

fn main() {
    let _ = not_a_handler();
}
