#![allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still part of 2026-07-28
//! Typed answers to input requests.
//!
//! `inputResponses` values carry no discriminator (the 2026-07-28 schema's `InputResponse` is an untagged union): each one is decoded by the
//! method of the request its key was asked with, never by sniffing its shape.

use std::any::Any;

use serde::Deserialize as _;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::request::{InputMethod, InputRequest};

/// The client's answer to one ask. Exhaustive on purpose: a dismissed dialog is never consent.
///
/// Serializable when `T` is, so that an answer kept for later (`let first = ask!(..);` read
/// after a second `ask!`) can be carried like any other local.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[must_use]
pub enum Answer<T> {
    /// The user (or the client's model) supplied a value that decoded as `T`.
    Accept(T),
    /// The user explicitly refused.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

impl<T> Answer<T> {
    /// The accepted value; `None` for a decline or a cancel.
    pub fn accepted(self) -> Option<T> {
        match self {
            Answer::Accept(value) => Some(value),
            Answer::Decline | Answer::Cancel => None,
        }
    }

    pub fn is_accept(&self) -> bool {
        matches!(self, Answer::Accept(_))
    }

    pub fn is_decline(&self) -> bool {
        matches!(self, Answer::Decline)
    }

    pub fn is_cancel(&self) -> bool {
        matches!(self, Answer::Cancel)
    }

    /// Transforms an accepted value; a decline or cancel stays what it was.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Answer<U> {
        match self {
            Answer::Accept(value) => Answer::Accept(f(value)),
            Answer::Decline => Answer::Decline,
            Answer::Cancel => Answer::Cancel,
        }
    }

    pub fn as_ref(&self) -> Answer<&T> {
        match self {
            Answer::Accept(value) => Answer::Accept(value),
            Answer::Decline => Answer::Decline,
            Answer::Cancel => Answer::Cancel,
        }
    }
}

/// Decodes one raw `inputResponses` value against the request it answers.
///
/// `Err` means the value is missing its expected shape (wrong type, undecodable content): the
/// caller treats the key as unanswered and asks again. The value is attacker input, so every
/// path here returns instead of panicking.
pub fn decode<T: DeserializeOwned + 'static>(
    request: &InputRequest,
    raw: &Value,
) -> Result<Answer<T>, String> {
    match request.method {
        InputMethod::Elicitation => decode_elicitation(request, raw),
        InputMethod::Sampling => decode_sampling(raw),
        InputMethod::Roots => decode_roots(raw),
    }
}

/// `ElicitResult`: `{action, content?}`. Only the last step depends on `T`: the checks are one
/// function for every answer type, not a copy per type in the hot code.
fn decode_elicitation<T: DeserializeOwned>(
    request: &InputRequest,
    raw: &Value,
) -> Result<Answer<T>, String> {
    let decoded = match elicited(request, raw)? {
        Elicited::Decline => return Ok(Answer::Decline),
        Elicited::Cancel => return Ok(Answer::Cancel),
        Elicited::Content(content) => T::deserialize(content),
        Elicited::Nothing => T::deserialize(Value::Null),
        Elicited::NoFields => T::deserialize(Value::Object(Map::new())),
    };
    decoded
        .map(Answer::Accept)
        .map_err(|e| format!("accepted content does not fit the requested form: {e}"))
}

/// What an elicitation answer asks to decode, once its action and form are checked.
enum Elicited<'a> {
    Decline,
    Cancel,
    Content(&'a Value),
    /// A URL answer: nothing beyond the consent.
    Nothing,
    /// A form answer without content: an all-optional form still decodes from `{}`, a form
    /// with required fields then fails and is asked again.
    NoFields,
}

fn elicited<'a>(request: &InputRequest, raw: &'a Value) -> Result<Elicited<'a>, String> {
    let object = raw
        .as_object()
        .ok_or_else(|| format!("an elicitation answer must be an object, got {}", kind(raw)))?;
    let action = object
        .get("action")
        .ok_or("an elicitation answer needs an `action`")?;
    match action.as_str() {
        Some("accept") => {}
        // Whatever content came with a refusal is not consent to anything: drop it.
        Some("decline") => return Ok(Elicited::Decline),
        Some("cancel") => return Ok(Elicited::Cancel),
        Some(other) => return Err(format!("unknown elicitation action `{}`", truncated(other))),
        None => return Err(format!("`action` must be a string, got {}", kind(action))),
    }
    let content = object.get("content").filter(|c| !c.is_null());
    if request.is_url_elicitation() {
        // A URL answer has no content (spec, elicitation: URL mode): accept only says the user
        // agreed to open the URL. An empty object is tolerated as "no content".
        return Ok(match content {
            Some(Value::Object(map)) if map.is_empty() => Elicited::Nothing,
            Some(content) => Elicited::Content(content),
            None => Elicited::Nothing,
        });
    }
    if let Some(schema) = request.param("requestedSchema") {
        let empty = Value::Object(Map::new());
        crate::elicit::check_content(schema, content.unwrap_or(&empty))?;
    }
    Ok(content.map_or(Elicited::NoFields, Elicited::Content))
}

/// `CreateMessageResult`: the model's message. There is no refusal variant: a client that will
/// not sample simply does not retry (spec, MRTR: the retry request).
fn decode_sampling<T: DeserializeOwned + 'static>(raw: &Value) -> Result<Answer<T>, String> {
    let result = rmcp::model::CreateMessageResult::deserialize(raw)
        .map_err(|e| format!("not a sampling result: {e}"))?;
    result.validate()?;
    // `sample()` asks for rmcp's model itself: hand over the value just checked rather than
    // decode the same answer a second time (rmcp's flattened content makes that the costly part).
    let mut checked = Some(result);
    if let Some(slot) = (&mut checked as &mut dyn Any).downcast_mut::<Option<T>>()
        && let Some(model) = slot.take()
    {
        return Ok(Answer::Accept(model));
    }
    T::deserialize(raw)
        .map(Answer::Accept)
        .map_err(|e| format!("sampling result does not decode: {e}"))
}

/// `ListRootsResult`. Every root MUST be a `file://` URI (spec, roots: `Root.uri`); a root that is not one is
/// dropped, with a warning, and the handler sees the others.
///
/// Dropping is safe because roots only ever narrow what a handler may touch: a root the server
/// cannot use as a filesystem boundary grants nothing when it is left out. Refusing the whole
/// answer instead would ask again, and a client that answered with an `https://` root once
/// answers the same way every round: the call could never finish.
fn decode_roots<T: DeserializeOwned>(raw: &Value) -> Result<Answer<T>, String> {
    let mut result = rmcp::model::ListRootsResult::deserialize(raw)
        .map_err(|e| format!("not a roots result: {e}"))?;
    let before = result.roots.len();
    result.roots.retain(|root| {
        let usable = root.uri.starts_with("file://");
        if !usable {
            tracing::warn!(target: "mrtr", uri = truncated(&root.uri), "roots answer: skipping a root that is not a file:// URI");
        }
        usable
    });
    let value = if result.roots.len() == before {
        raw.clone()
    } else {
        serde_json::to_value(&result)
            .map_err(|e| format!("roots result does not re-encode: {e}"))?
    };
    T::deserialize(value)
        .map(Answer::Accept)
        .map_err(|e| format!("roots result does not decode: {e}"))
}

/// The JSON type of `value`, as an error message names it.
pub(crate) fn kind(value: &Value) -> &'static str {
    crate::malformed::JsonKind::of(value).describe()
}

/// Client text echoed into logs is bounded, so a hostile answer cannot flood them.
fn truncated(text: &str) -> &str {
    match text.char_indices().nth(64) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

#[cfg(test)]
mod attacker_input_tests;
#[cfg(test)]
mod decode_tests;

#[cfg(test)]
mod tests {
    use rmcp::model::ListRootsResult;
    use serde_json::json;

    use super::*;
    use crate::request::roots;

    fn uris(answer: Result<Answer<ListRootsResult>, String>) -> Vec<String> {
        match answer {
            Ok(Answer::Accept(result)) => result.roots.into_iter().map(|r| r.uri).collect(),
            other => panic!("expected accepted roots, got {:?}", other.map(|_| ())),
        }
    }

    #[test]
    fn roots_that_are_not_file_uris_are_skipped_and_the_rest_kept() {
        let request = roots().into_request();
        let raw = json!({"roots": [
            {"uri": "file:///repo", "name": "repo"},
            {"uri": "https://evil.example/"},
            {"uri": "FILE:///upper"},
            {"uri": "file:///docs"},
        ]});
        assert_eq!(
            uris(decode(&request, &raw)),
            ["file:///repo", "file:///docs"]
        );
    }

    #[test]
    fn a_roots_answer_with_only_foreign_roots_is_an_empty_list_not_a_re_ask() {
        let request = roots().into_request();
        let raw = json!({"roots": [{"uri": "s3://bucket/"}]});
        assert!(uris(decode(&request, &raw)).is_empty());
    }

    #[test]
    fn a_roots_answer_that_is_not_a_list_is_asked_again() {
        let request = roots().into_request();
        assert!(decode::<ListRootsResult>(&request, &json!({"roots": "file:///"})).is_err());
    }
}
