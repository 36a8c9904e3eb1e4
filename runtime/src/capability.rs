//! The per-request capability gate (2026-07-28 spec, basic `_meta`: capabilities are declared per request, and the MRTR server requirements: never ask for what the request did not declare).
//!
//! On 2026-07-28 capabilities are declared per request in `_meta` and a server MUST NOT infer
//! them from earlier requests; on a legacy session they are the ones sent at `initialize`.
//! Handlers read them through [`ClientCaps`] to degrade before asking; [`gate`] is the backstop
//! that keeps an undeclared ask off the wire and names what is missing (-32021).

use std::sync::{Arc, OnceLock};

use rmcp::handler::server::common::{AsRequestContext, FromContextPart};
use serde_json::{Map, Value};

use crate::error::MrtrError;
use crate::request::{InputMethod, InputRequest, SamplingUses};

mod recent;

/// Where a 2026-07-28 request declares its capabilities in `_meta`.
const META_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// The client capabilities declared for this request (2026-07-28 `_meta`) or, on a legacy
/// session, at `initialize`.
///
/// Take it as a handler parameter to choose a fallback before asking:
/// `if !caps.elicitation_form() { return Ok(plain_text_instructions()) }`.
///
/// Shared, not copied: a round reads them once, and the handler's parameter, the gate and the
/// suspension hold the same value.
#[derive(Clone, Debug)]
pub struct ClientCaps {
    declared: Arc<Declared>,
}

/// What a request declared: each capability the gate asks about, read once, and the
/// declaration itself. rmcp hands over its typed model, which is turned into JSON only if a
/// handler asks for [`ClientCaps::declared`]: most requests never do, and the conversion was
/// most of what reading the capabilities cost.
#[derive(Debug)]
struct Declared {
    reads: Reads,
    typed: Option<rmcp::model::ClientCapabilities>,
    json: OnceLock<Value>,
}

/// The answers of the predicates, in the shape the gate reads them.
#[derive(Clone, Copy, Debug)]
struct Reads {
    elicitation: bool,
    elicitation_form: bool,
    elicitation_url: bool,
    sampling: bool,
    sampling_tools: bool,
    sampling_context: bool,
    roots: bool,
}

impl Reads {
    fn of_value(declared: &Value) -> Self {
        let section = |name: &str| {
            declared
                .as_object()
                .and_then(|o| o.get(name))
                .filter(|v| !v.is_null())
        };
        let member = |name: &str, member: &str| {
            section(name)
                .and_then(Value::as_object)
                .and_then(|s| s.get(member))
                .is_some_and(|v| !v.is_null())
        };
        Reads {
            elicitation: section("elicitation").is_some(),
            // `elicitation: {}` declares form only (the 2025-06-18 shape).
            elicitation_form: match section("elicitation") {
                Some(Value::Object(e)) => e.contains_key("form") || !e.contains_key("url"),
                _ => false,
            },
            elicitation_url: member("elicitation", "url"),
            sampling: section("sampling").is_some(),
            sampling_tools: member("sampling", "tools"),
            sampling_context: member("sampling", "context"),
            roots: section("roots").is_some(),
        }
    }

    /// The same answers as [`Reads::of_value`] gives for the JSON of `declared`.
    fn of_rmcp(declared: &rmcp::model::ClientCapabilities) -> Self {
        let elicitation = declared.elicitation.as_ref();
        let sampling = declared.sampling.as_ref();
        Reads {
            elicitation: elicitation.is_some(),
            elicitation_form: elicitation.is_some_and(|e| e.form.is_some() || e.url.is_none()),
            elicitation_url: elicitation.is_some_and(|e| e.url.is_some()),
            sampling: sampling.is_some(),
            sampling_tools: sampling.is_some_and(|s| s.tools.is_some()),
            sampling_context: sampling.is_some_and(|s| s.context.is_some()),
            roots: declared.roots.is_some(),
        }
    }
}

/// Nothing declared: a `null` declaration, as a request without capabilities reads.
impl Default for ClientCaps {
    fn default() -> Self {
        Self::from_value(Value::Null)
    }
}

impl PartialEq for ClientCaps {
    fn eq(&self, other: &Self) -> bool {
        self.declared() == other.declared()
    }
}

impl ClientCaps {
    /// Capabilities from a raw `ClientCapabilities` object; anything but an object declares
    /// nothing.
    pub fn from_value(declared: Value) -> Self {
        Self::new(Declared {
            reads: Reads::of_value(&declared),
            typed: None,
            json: OnceLock::from(declared),
        })
    }

    /// Capabilities from rmcp's model; `None` (nothing declared) allows no ask.
    pub fn from_rmcp(capabilities: Option<&rmcp::model::ClientCapabilities>) -> Self {
        Self::from_typed(capabilities.cloned())
    }

    /// rmcp's model, kept as it is: its JSON is built only if [`Self::declared`] is asked for.
    fn from_typed(capabilities: Option<rmcp::model::ClientCapabilities>) -> Self {
        let Some(typed) = capabilities else {
            return Self::from_value(Value::Object(Map::new()));
        };
        Self::new(Declared {
            reads: Reads::of_rmcp(&typed),
            typed: Some(typed),
            json: OnceLock::new(),
        })
    }

    fn new(declared: Declared) -> Self {
        Self {
            declared: Arc::new(declared),
        }
    }

    /// The capabilities of the request `context` belongs to: read from rmcp's context once
    /// per request and kept in its extensions, where the round and the handler's `ClientCaps`
    /// parameter both find them.
    pub(crate) fn of_request(
        context: &mut rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Self {
        if let Some(caps) = context.extensions.get::<ClientCaps>() {
            return caps.clone();
        }
        let caps = Self::of_context(context);
        context.extensions.insert(caps.clone());
        caps
    }

    /// The capabilities `context` declares, read without keeping them: those its `_meta`
    /// declares if they read (then nothing else counts, whatever the session), by what this
    /// thread read of an equal declaration if it did; else what rmcp falls back to.
    pub(crate) fn of_context(context: &rmcp::service::RequestContext<rmcp::RoleServer>) -> Self {
        let in_meta = (context.meta.0).0.get(META_KEY).and_then(|declared| {
            recent::read(declared, || {
                context
                    .meta
                    .client_capabilities()
                    .map(|typed| ClientCaps::from_typed(Some(typed)))
            })
        });
        in_meta.unwrap_or_else(|| ClientCaps::from_typed(context.client_capabilities()))
    }

    /// The declared capabilities as sent.
    pub fn declared(&self) -> &Value {
        let declared = &*self.declared;
        declared.json.get_or_init(|| {
            declared
                .typed
                .as_ref()
                .and_then(|typed| serde_json::to_value(typed).ok())
                .unwrap_or_else(|| Value::Object(Map::new()))
        })
    }

    /// Form elicitation: `elicitation.form`, or `elicitation: {}`, which declares form only
    /// (the 2025-06-18 shape).
    pub fn elicitation_form(&self) -> bool {
        self.declared.reads.elicitation_form
    }

    /// URL-mode elicitation: `elicitation.url`.
    pub fn elicitation_url(&self) -> bool {
        self.declared.reads.elicitation_url
    }

    pub fn sampling(&self) -> bool {
        self.declared.reads.sampling
    }

    /// Sampling with `tools` / `toolChoice`: `sampling.tools`.
    pub fn sampling_tools(&self) -> bool {
        self.declared.reads.sampling_tools
    }

    /// Sampling with `includeContext` other than `"none"`: `sampling.context`.
    pub fn sampling_context(&self) -> bool {
        self.declared.reads.sampling_context
    }

    /// `roots`; the legacy `{listChanged: true}` still counts (the conformance harness sends it).
    pub fn roots(&self) -> bool {
        self.declared.reads.roots
    }
}

impl<C: AsRequestContext> FromContextPart<C> for ClientCaps {
    fn from_context_part(context: &mut C) -> Result<Self, rmcp::ErrorData> {
        Ok(ClientCaps::of_request(context.as_request_context_mut()))
    }
}

/// What the failing asks need, accumulated so one error names all of it.
#[derive(Default)]
struct Needs {
    form: bool,
    url: bool,
    sampling: bool,
    sampling_tools: bool,
    sampling_context: bool,
    roots: bool,
}

impl Needs {
    fn any(&self) -> bool {
        self.form
            || self.url
            || self.sampling
            || self.sampling_tools
            || self.sampling_context
            || self.roots
    }

    /// The `requiredCapabilities` object: a `ClientCapabilities` naming exactly what is missing.
    fn required(&self, caps: &ClientCaps) -> Value {
        let mut required = Map::new();
        if self.form || self.url {
            let mut elicitation = Map::new();
            // `elicitation: {}` already means "form"; spell `form` out only when it must be told
            // apart from a declared URL-only elicitation or from a URL need in the same error.
            let declared_any = caps.declared.reads.elicitation;
            if self.form && (self.url || declared_any) {
                elicitation.insert("form".into(), Value::Object(Map::new()));
            }
            if self.url {
                elicitation.insert("url".into(), Value::Object(Map::new()));
            }
            required.insert("elicitation".into(), Value::Object(elicitation));
        }
        if self.sampling || self.sampling_tools || self.sampling_context {
            let mut sampling = Map::new();
            if self.sampling_tools {
                sampling.insert("tools".into(), Value::Object(Map::new()));
            }
            if self.sampling_context {
                sampling.insert("context".into(), Value::Object(Map::new()));
            }
            required.insert("sampling".into(), Value::Object(sampling));
        }
        if self.roots {
            required.insert("roots".into(), Value::Object(Map::new()));
        }
        Value::Object(required)
    }
}

/// Checks every request against `caps`; the error names exactly what is missing (-32021).
pub fn gate<'a>(
    caps: &ClientCaps,
    requests: impl IntoIterator<Item = &'a InputRequest>,
) -> Result<(), MrtrError> {
    let mut needs = Needs::default();
    for request in requests {
        match request.method {
            InputMethod::Elicitation if request.is_url_elicitation() => {
                needs.url |= !caps.elicitation_url()
            }
            InputMethod::Elicitation => needs.form |= !caps.elicitation_form(),
            InputMethod::Sampling => {
                needs.sampling |= !caps.sampling();
                let SamplingUses { tools, context } = request.sampling_uses();
                needs.sampling_tools |= tools && !caps.sampling_tools();
                // `thisServer` / `allServers` are soft-deprecated and SHOULD only be sent to a
                // client that declared `sampling.context`; "SHOULD" is enforced like "MUST"
                // because an undeclared ask must never reach the wire.
                needs.sampling_context |= context && !caps.sampling_context();
            }
            InputMethod::Roots => needs.roots |= !caps.roots(),
        }
    }
    if needs.any() {
        Err(MrtrError::MissingCapability(needs.required(caps)))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests;
