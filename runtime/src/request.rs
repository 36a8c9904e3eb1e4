#![allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still part of 2026-07-28
//! Input requests: what an `ask!` sends, with the exact 2026-07-28 payloads (the 2026-07-28 schema's `ElicitRequestParams`, `CreateMessageRequestParams`, `ListRootsRequest`).
//!
//! Each builder returns an [`Ask<T>`]: the bare `{method, params}` that goes into
//! `inputRequests`, typed by what an accepted answer decodes to.

use std::borrow::Cow;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::elicit::Elicit;
use crate::seal::known_forms::KnownForm;

/// The three methods an `inputRequests` entry may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum InputMethod {
    #[serde(rename = "elicitation/create")]
    Elicitation,
    #[serde(rename = "sampling/createMessage")]
    Sampling,
    #[serde(rename = "roots/list")]
    Roots,
}

/// One `inputRequests` entry: a bare `{method, params}` (no `jsonrpc`, no `id`).
#[derive(Clone, Debug, Deserialize)]
pub struct InputRequest {
    pub method: InputMethod,
    /// The params as sent; `None` for a known form, whose three params are kept apart
    /// (`form`, `message`) and read through [`InputRequest::param`].
    #[serde(default)]
    pub params: Option<Value>,
    /// A form of a `#[derive(Elicit)]` type: its schema, shared by every ask of it and named by
    /// id in a sealed continuation.
    #[serde(skip)]
    pub(crate) form: Option<&'static KnownForm>,
    /// A known form's message, as the JSON string [`InputRequest::param`] lends. Kept apart
    /// from a params object: each ask of a form, and each continuation opened with one, would
    /// otherwise build a map (a B-tree node of about 600 bytes) only to read its two entries.
    #[serde(skip)]
    pub(crate) message: Option<Value>,
    /// The params [`sample`] was given, in rmcp's model, in place of `params`: the round that
    /// asks answers with them and seals them straight to CBOR, and neither step goes through a
    /// JSON value of them (nor a decode back, which buffers every message through serde's
    /// untagged content, about 3 µs an ask).
    #[serde(skip)]
    pub(crate) sampling: Option<Box<rmcp::model::CreateMessageRequestParams>>,
    /// A sampling ask's params as a continuation sealed them (CBOR, checked as JSON), in place
    /// of `params`, still undecoded: a round that resumes with its answer never reads them, and
    /// one that asks again decodes them first ([`InputRequest::unseal`]).
    #[serde(skip)]
    pub(crate) sealed: Option<Box<[u8]>>,
}

impl PartialEq for InputRequest {
    /// Equal when they go on the wire alike, whichever form their params are held in.
    fn eq(&self, other: &Self) -> bool {
        self.method == other.method
            && self.form.map(KnownForm::id) == other.form.map(KnownForm::id)
            && self.message == other.message
            && self.json_params() == other.json_params()
    }
}

/// The request as it goes on the wire: a known form's schema back in its params.
impl Serialize for InputRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("method", &self.method)?;
        match (self.json_params(), self.form) {
            (_, Some(form)) => map.serialize_entry(
                "params",
                &FormParams {
                    message: self.message.as_ref().unwrap_or(&Value::Null),
                    schema: form.schema(),
                },
            )?,
            (Some(params), None) => map.serialize_entry("params", &*params)?,
            (None, None) => {}
        }
        map.end()
    }
}

/// A known form's params on the wire, in the order a JSON object of them serializes.
struct FormParams<'a> {
    message: &'a Value,
    schema: &'a Value,
}

impl Serialize for FormParams<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("message", self.message)?;
        map.serialize_entry("mode", &*FORM_MODE)?;
        map.serialize_entry("requestedSchema", self.schema)?;
        map.end()
    }
}

/// `params.mode` of every known form, lent by [`InputRequest::param`].
static FORM_MODE: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| Value::String("form".into()));

impl InputRequest {
    /// A request with these params, as sent (no shared form schema).
    pub fn new(method: InputMethod, params: Option<Value>) -> Self {
        InputRequest {
            method,
            params,
            form: None,
            message: None,
            sampling: None,
            sealed: None,
        }
    }

    /// A request whose params a continuation sealed as `cbor` (one CBOR item that
    /// [`cbor::json::skip`] accepted), decoded only if the round asks it again.
    pub(crate) fn sealed(method: InputMethod, cbor: &[u8]) -> Self {
        InputRequest {
            sealed: Some(cbor.into()),
            ..InputRequest::new(method, None)
        }
    }

    /// Appends the params as a continuation seals them (one CBOR item of JSON); `false` when
    /// there are none. Params sealed before are copied as they are; typed params are written
    /// through serde and checked to read back as JSON, and only what does not (a float JSON
    /// cannot hold, which `serde_json` makes `null`) takes the way through a JSON value.
    pub(crate) fn write_params(&self, out: &mut Vec<u8>) -> bool {
        if let Some(cbor) = &self.sealed {
            out.extend_from_slice(cbor);
        } else if let Some(typed) = &self.sampling {
            let start = out.len();
            let direct = crate::cbor::to_vec(&**typed, out).is_ok() && {
                let mut written = &out[start..];
                crate::cbor::json::skip(&mut written).is_ok() && written.is_empty()
            };
            if !direct {
                out.truncate(start);
                let params = serde_json::to_value(&**typed).unwrap_or_else(|_| json!({}));
                crate::cbor::json::write(out, &params);
            }
        } else if let Some(params) = &self.params {
            crate::cbor::json::write(out, params);
        } else {
            return false;
        }
        true
    }

    /// Decodes params still held as sealed, before anything reads them by name: a round that
    /// asks this again gates it on the capabilities and puts it on the wire.
    pub(crate) fn unseal(&mut self) -> Result<(), String> {
        if let Some(cbor) = self.sealed.take() {
            self.params = Some(read_sealed(&cbor)?);
        }
        Ok(())
    }

    /// The params as JSON, whichever form they are held in (`None` for a known form's, which
    /// are not a value, and for none).
    pub(crate) fn json_params(&self) -> Option<Cow<'_, Value>> {
        if let Some(params) = &self.params {
            return Some(Cow::Borrowed(params));
        }
        if let Some(typed) = &self.sampling {
            return serde_json::to_value(&**typed).ok().map(Cow::Owned);
        }
        read_sealed(self.sealed.as_deref()?).ok().map(Cow::Owned)
    }

    /// URL-mode elicitation (`params.mode == "url"`). A missing `mode` means form.
    pub fn is_url_elicitation(&self) -> bool {
        self.method == InputMethod::Elicitation
            && self.param("mode").and_then(Value::as_str) == Some("url")
    }

    /// rmcp's model of this entry, for its `InputRequiredResult`, taken by value: a sampling
    /// ask's typed params move into it, and other params decode from the owned JSON without
    /// copying its strings. Elicitation and sampling decode their params straight into the
    /// variant the method names: going through rmcp's untagged `InputRequest` instead buffers
    /// the JSON and tries each variant in turn, which cost about 4% of a server's CPU per round
    /// in the flow benchmark.
    pub(crate) fn into_rmcp(mut self) -> Result<rmcp::model::InputRequest, serde_json::Error> {
        use rmcp::model::{CreateMessageRequest, ElicitRequest, InputRequest as Wire};
        match self.method {
            InputMethod::Elicitation => {
                if let (Some(form), Some(Value::String(message))) = (self.form, &mut self.message) {
                    let params = known_form_params(form, std::mem::take(message))?;
                    return Ok(Wire::Elicitation(ElicitRequest::new(params)));
                }
            }
            InputMethod::Sampling => {
                if let Some(typed) = self.sampling.take() {
                    return Ok(Wire::CreateMessage(CreateMessageRequest::new(*typed)));
                }
            }
            InputMethod::Roots => {}
        }
        self.into_rmcp_from_json()
    }

    /// [`Self::into_rmcp`] for every shape but a derived form and the params `sample` typed:
    /// out of line, so that a round's common path does not run past serde's code for them.
    #[inline(never)]
    fn into_rmcp_from_json(self) -> Result<rmcp::model::InputRequest, serde_json::Error> {
        use rmcp::model::{CreateMessageRequest, ElicitRequest, InputRequest as Wire};
        Ok(match self.method {
            InputMethod::Elicitation => {
                Wire::Elicitation(ElicitRequest::new(match self.form_params() {
                    Some(form) => form?,
                    None => serde_json::from_value(self.params.unwrap_or(Value::Null))?,
                }))
            }
            // Params decoded from a continuation (`unseal`) move into the decode, not a copy.
            InputMethod::Sampling => {
                Wire::CreateMessage(CreateMessageRequest::new(match self.params {
                    Some(params) => serde_json::from_value(params)?,
                    None => self.sampling_params()?,
                }))
            }
            InputMethod::Roots => serde_json::from_value(serde_json::to_value(&self)?)?,
        })
    }

    /// rmcp's params of a form elicitation as `elicit` builds it (its schema converted once
    /// per process); `None` for any other request or shape.
    pub(crate) fn form_params(
        &self,
    ) -> Option<Result<rmcp::model::ElicitRequestParams, serde_json::Error>> {
        if self.method != InputMethod::Elicitation {
            return None;
        }
        if let Some(form) = self.form {
            let message = self.param("message")?.as_str()?;
            return Some(known_form_params(form, message.to_owned()));
        }
        form::params(self.params.as_ref()?)
    }

    /// What a sampling ask uses beyond plain sampling: read from its typed params when the
    /// round built it with [`sample`] (no lookups by name), else from its JSON params.
    pub(crate) fn sampling_uses(&self) -> SamplingUses {
        use rmcp::model::ContextInclusion;
        if let Some(typed) = &self.sampling {
            return SamplingUses {
                tools: typed.tools.is_some() || typed.tool_choice.is_some(),
                context: typed
                    .include_context
                    .as_ref()
                    .is_some_and(|context| *context != ContextInclusion::None),
            };
        }
        let params = self.json_params();
        let param = |name: &str| params.as_ref()?.get(name).filter(|v| !v.is_null());
        SamplingUses {
            tools: param("tools").is_some() || param("toolChoice").is_some(),
            context: param("includeContext")
                .and_then(Value::as_str)
                .is_some_and(|c| c != "none"),
        }
    }

    /// A sampling ask's params in rmcp's model, for a legacy client's `sampling/createMessage`.
    pub(crate) fn sampling_params(
        &self,
    ) -> Result<rmcp::model::CreateMessageRequestParams, serde_json::Error> {
        match &self.sampling {
            Some(typed) => Ok((**typed).clone()),
            None => serde_json::from_value(self.json_params().map_or(Value::Null, Cow::into_owned)),
        }
    }

    /// One top-level field of `params`, if `params` is an object that has it (a known form's
    /// `mode`, `message` and `requestedSchema` included).
    pub(crate) fn param(&self, name: &str) -> Option<&Value> {
        if let Some(form) = self.form {
            return match name {
                "mode" => Some(&FORM_MODE),
                "message" => self.message.as_ref(),
                "requestedSchema" => Some(form.schema()),
                _ => None,
            };
        }
        self.params.as_ref()?.as_object()?.get(name)
    }

    /// A known form: `{method: elicitation, params: {mode, message, requestedSchema}}`, its
    /// schema shared.
    pub(crate) fn known_form(message: String, form: &'static KnownForm) -> Self {
        InputRequest {
            form: Some(form),
            message: Some(Value::String(message)),
            ..InputRequest::new(InputMethod::Elicitation, None)
        }
    }
}

#[cfg(test)]
impl InputRequest {
    /// What a continuation sealed with this ask opens to: its params as sealed, undecoded.
    pub(crate) fn resealed(&self) -> InputRequest {
        let mut cbor = Vec::new();
        assert!(self.write_params(&mut cbor), "no params to seal");
        let mut rest = cbor.as_slice();
        crate::cbor::json::skip(&mut rest).expect("sealed params read as JSON");
        assert!(rest.is_empty(), "one item");
        InputRequest::sealed(self.method, &cbor)
    }
}

/// Params a continuation sealed: exactly one CBOR item of JSON.
fn read_sealed(cbor: &[u8]) -> Result<Value, String> {
    let mut input = cbor;
    let params = crate::cbor::json::read(&mut input)?;
    if !input.is_empty() {
        return Err("bytes after a sealed request's params".into());
    }
    Ok(params)
}

/// rmcp's params of a known form's ask (the schema converted once per process).
fn known_form_params(
    form: &'static KnownForm,
    message: String,
) -> Result<rmcp::model::ElicitRequestParams, serde_json::Error> {
    form.model().map(
        |requested_schema| rmcp::model::ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema,
        },
    )
}

/// What a sampling ask needs beyond `sampling` itself: `sampling.tools` for tools or a tool
/// choice, `sampling.context` for any context inclusion but `none`.
pub(crate) struct SamplingUses {
    pub(crate) tools: bool,
    pub(crate) context: bool,
}

/// A typed input request: `T` is what an accepted answer decodes to.
#[must_use = "an Ask does nothing until it is passed to `ask!`"]
pub struct Ask<T> {
    request: InputRequest,
    answer: PhantomData<fn() -> T>,
}

impl<T> Ask<T> {
    pub(crate) fn from_request(request: InputRequest) -> Self {
        Self {
            request,
            answer: PhantomData,
        }
    }
    #[cfg(test)]
    pub(crate) fn request(&self) -> &InputRequest {
        &self.request
    }
    pub(crate) fn into_request(self) -> InputRequest {
        self.request
    }
}

impl<T> std::fmt::Debug for Ask<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Ask").field(&self.request).finish()
    }
}

/// Form elicitation whose `requestedSchema` is derived from `T` (`#[derive(mrtr::Elicit)]`).
///
/// `mode: "form"` is sent explicitly: 2026-07-28 and 2025-11-25 clients accept it, and the legacy
/// path strips it for 2025-06-18 clients, which predate the field.
pub fn elicit<T: Elicit>(message: impl Into<String>) -> Ask<T> {
    match T::__known_form() {
        Some(form) => Ask::from_request(InputRequest::known_form(message.into(), form)),
        None => elicit_with_schema(message, T::requested_schema()),
    }
}

/// Form elicitation with a hand-built `requestedSchema`, for shapes the derive does not produce.
///
/// `schema` must be the restricted flat object schema of the spec's elicitation section (`PrimitiveSchemaDefinition`)
/// (`{"type":"object","properties":{..},"required":[..]}`); an accepted answer's `content`
/// decodes as `T` (a `serde_json::Map<String, Value>` takes anything).
pub fn elicit_with_schema<T: DeserializeOwned>(
    message: impl Into<String>,
    schema: Value,
) -> Ask<T> {
    Ask::from_request(InputRequest::new(
        InputMethod::Elicitation,
        Some(json!({ "mode": "form", "message": message.into(), "requestedSchema": schema })),
    ))
}

/// URL-mode elicitation; an accepted answer only means the user agreed to open `url`.
///
/// Whether the out-of-band step finished is the server's to find out on a later round
/// (spec, elicitation: URL mode); put any correlation id in the carried state, not in the URL's PII.
pub fn elicit_url(message: impl Into<String>, url: impl Into<String>) -> Ask<()> {
    Ask::from_request(InputRequest::new(
        InputMethod::Elicitation,
        Some(json!({ "mode": "url", "message": message.into(), "url": url.into() })),
    ))
}

/// `sampling/createMessage` with the same parameters the legacy `Peer::create_message` took.
///
/// `_meta` is dropped: 2026-07-28 `CreateMessageRequestParams` has none. Asking with `tools` or
/// `toolChoice` needs the client's `sampling.tools` capability (checked by the gate).
pub fn sample(
    params: rmcp::model::CreateMessageRequestParams,
) -> Ask<rmcp::model::CreateMessageResult> {
    let mut typed = params;
    typed.meta = None;
    Ask::from_request(InputRequest {
        sampling: Some(Box::new(typed)),
        ..InputRequest::new(InputMethod::Sampling, None)
    })
}

/// `roots/list`. Prefer tool arguments or configuration for filesystem boundaries (the porting
/// guide's advice); this exists for handlers that genuinely need the client's roots.
pub fn roots() -> Ask<rmcp::model::ListRootsResult> {
    Ask::from_request(InputRequest::new(
        InputMethod::Roots,
        Some(Value::Object(Map::new())),
    ))
}

mod asks;
mod form;

pub use asks::Asks;
#[cfg(test)]
mod tests;

#[cfg(test)]
mod rmcp_model_tests {
    use super::*;

    /// What the untagged conversion the direct one replaced gives for the same entry.
    fn through_untagged(request: &InputRequest) -> Value {
        let wire: rmcp::model::InputRequest =
            serde_json::from_value(serde_json::to_value(request).unwrap()).unwrap();
        serde_json::to_value(wire).unwrap()
    }

    #[test]
    fn every_kind_of_ask_becomes_the_request_rmcp_would_have_decoded() {
        let sampling = rmcp::model::CreateMessageRequestParams::new(
            vec![rmcp::model::SamplingMessage::user_text("digest")],
            400,
        )
        .with_system_prompt("Summarise.");
        let schema = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } } });
        let rich = json!({
            "type": "object",
            "properties": {
                "environment": { "type": "string", "enum": ["staging", "production"],
                                 "description": "Deployment target" },
                "replicas": { "type": "integer", "minimum": 1, "maximum": 9 },
                "note": { "type": "string", "title": "Note", "maxLength": 80 },
            },
            "required": ["environment"],
        });
        // Shapes `elicit` does not build take rmcp's general decoder: `_meta`, no `mode`.
        let with_meta = InputRequest::new(
            InputMethod::Elicitation,
            Some(json!({ "mode": "form", "message": "m", "_meta": { "k": 1 },
                         "requestedSchema": schema })),
        );
        let without_mode = InputRequest::new(
            InputMethod::Elicitation,
            Some(json!({ "message": "m", "requestedSchema": schema })),
        );
        let asks = [
            elicit_with_schema::<Value>("Proceed?", schema.clone()).into_request(),
            elicit_with_schema::<Value>("Where to?", rich).into_request(),
            with_meta,
            without_mode,
            elicit_url("Sign in", "https://example.invalid/auth").into_request(),
            sample(sampling).into_request(),
            roots().into_request(),
        ];
        for request in asks {
            let direct = serde_json::to_value(request.clone().into_rmcp().unwrap()).unwrap();
            assert_eq!(direct, through_untagged(&request), "{request:?}");
        }
    }

    #[test]
    fn a_sampling_ask_answers_with_its_own_params_as_a_resumed_round_decodes_them() {
        use rmcp::model::{ContextInclusion, SamplingMessage};
        let mut params = rmcp::model::CreateMessageRequestParams::new(
            vec![
                SamplingMessage::user_text("digest ✓ \"quoted\"\n"),
                SamplingMessage::assistant_text("earlier answer"),
            ],
            400,
        )
        .with_system_prompt("Summarise.")
        .with_temperature(0.3)
        .with_stop_sequences(vec!["END".into()])
        .with_include_context(ContextInclusion::ThisServer);
        params.metadata = Some(json!({ "trace": [1, 2.5, null] }));
        params.meta = Some(serde_json::from_value(json!({ "progressToken": 7 })).unwrap());
        let asked = sample(params).into_request();
        assert!(asked.sampling.is_some(), "the ask keeps its typed params");
        assert!(asked.params.is_none(), "and no JSON value of them");
        // What a resumed round has: the params as sealed, without the typed copy, and then
        // decoded, as a round that asks again decodes them.
        let resumed = asked.resealed();
        assert!(resumed.sealed.is_some() && resumed.params.is_none());
        let mut unsealed = resumed.clone();
        unsealed.unseal().unwrap();
        assert!(unsealed.sealed.is_none() && unsealed.params.is_some());
        let wire = |request: &InputRequest| {
            serde_json::to_value(request.clone().into_rmcp().unwrap()).unwrap()
        };
        for other in [&resumed, &unsealed] {
            assert_eq!(wire(&asked), wire(other));
            assert_eq!(wire(&asked), through_untagged(other));
            assert_eq!(&asked, other, "equal whichever form the params are in");
        }
        // The CBOR written through serde holds the JSON a value of the params would.
        assert_eq!(
            unsealed.params.as_ref(),
            Some(&serde_json::to_value(asked.sampling.as_deref().unwrap()).unwrap())
        );
        assert!(
            wire(&asked)["params"].get("_meta").is_none(),
            "{}",
            wire(&asked)
        );
    }

    /// A float JSON cannot hold is written by serde as CBOR `NaN`, which a sealed request may
    /// not hold: those params are sealed through a JSON value, where it is `null`, as a legacy
    /// client would receive it.
    #[test]
    fn typed_params_that_cbor_cannot_carry_as_json_are_sealed_through_a_value() {
        use rmcp::model::SamplingMessage;
        let params =
            rmcp::model::CreateMessageRequestParams::new(vec![SamplingMessage::user_text("x")], 9)
                .with_temperature(f32::NAN);
        let asked = sample(params).into_request();
        let mut unsealed = asked.resealed();
        unsealed.unseal().unwrap();
        let params = unsealed.params.as_ref().unwrap();
        assert_eq!(params["temperature"], Value::Null, "{params}");
        assert_eq!(params["maxTokens"], json!(9));
        let wire = serde_json::to_value(unsealed.into_rmcp().unwrap()).unwrap();
        assert!(wire["params"].get("temperature").is_none(), "{wire}");
    }

    #[test]
    fn sealed_params_that_do_not_read_as_json_are_an_error_when_unsealed() {
        for cbor in [&[0x9f, 0xff][..], &[0xf6, 0xf6][..], &[0x82, 0xf6][..]] {
            let mut request = InputRequest::sealed(InputMethod::Sampling, cbor);
            assert!(request.unseal().is_err(), "{cbor:02x?}");
        }
    }

    #[test]
    fn params_that_do_not_fit_the_method_are_an_error_not_another_variant() {
        let request = InputRequest::new(
            InputMethod::Sampling,
            Some(json!({ "message": "not a sampling request" })),
        );
        assert!(request.into_rmcp().is_err());
    }
}
