//! Types that can be asked for with a flat elicitation form.
//!
//! OWNER: helper B.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// A form: a flat object of primitive fields. Derive it with `#[derive(mrtr::Elicit)]`.
pub trait Elicit: DeserializeOwned {
    /// The restricted `requestedSchema` (`{"type":"object","properties":..,"required":..}`).
    fn requested_schema() -> Value;
}
