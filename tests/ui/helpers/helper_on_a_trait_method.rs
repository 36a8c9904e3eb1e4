// A pluggable gate as a trait whose method asks: a call through the trait cannot carry the
// implementation's frame across rounds; the message gives the pattern that keeps the pluggability.
use mrtr::mrtr_helper;

trait Confirmer {
    #[mrtr_helper]
    async fn confirm(&self, action: &str) -> bool;
}

fn main() {}
