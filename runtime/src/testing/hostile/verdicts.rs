//! How the hostile suite judges one response against the promise its case checks.

use rmcp::model::CallToolResponse;
use rmcp::service::ServiceError;
use serde_json::{Value, json};

use super::forgery::capability_of;
use super::report::{Case, Verdict};
use super::{INVALID_PARAMS, MISSING_CAPABILITY, Opened, Response};

pub(super) fn push(cases: &mut Vec<Case>, name: &str, verdict: Verdict) {
    cases.push(Case {
        name: name.to_owned(),
        verdict,
    });
}

pub(super) fn describe(response: &Response) -> String {
    match response {
        Ok(CallToolResponse::Complete(result)) => format!(
            "a complete result{}",
            if result.is_error == Some(true) {
                " (isError)"
            } else {
                ""
            }
        ),
        Ok(CallToolResponse::InputRequired(result)) => format!(
            "input_required asking {:?}",
            result
                .input_requests
                .iter()
                .flat_map(|r| r.keys())
                .collect::<Vec<_>>()
        ),
        Ok(_) => "an unexpected result".into(),
        Err(ServiceError::McpError(error)) => format!("error {}: {}", error.code.0, error.message),
        Err(other) => format!("client error: {other}"),
    }
}

/// What a response is, for comparing two runs: the final content, the keys asked, or the code.
pub(super) fn shape(response: &Response) -> Value {
    match response {
        Ok(CallToolResponse::Complete(result)) => {
            json!({ "complete": result.content, "isError": result.is_error })
        }
        Ok(CallToolResponse::InputRequired(result)) => {
            json!({ "asked": result.input_requests.iter().flat_map(|r| r.keys()).collect::<Vec<_>>() })
        }
        Ok(_) => json!("other"),
        Err(ServiceError::McpError(error)) => json!({ "error": error.code.0 }),
        Err(other) => json!({ "client error": other.to_string() }),
    }
}

pub(super) fn rerun(opened: &Opened) -> Option<String> {
    let now = opened.effects.all();
    (now != opened.after_open).then(|| {
        format!(
            "user code ran: the effect log went from {:?} to {now:?}",
            opened.after_open
        )
    })
}

pub(super) fn refusal(response: &Response, opened: &Opened) -> Verdict {
    match response {
        Err(ServiceError::McpError(error)) if error.code.0 == INVALID_PARAMS => match rerun(opened)
        {
            Some(why) => Verdict::Broken(format!("refused with -32602, but {why}")),
            None => Verdict::Held,
        },
        other => Verdict::Broken(format!("expected -32602, got {}", describe(other))),
    }
}

pub(super) fn asked_again(response: &Response, keys: &[&str], opened: &Opened) -> Verdict {
    let asked: Vec<String> = match response {
        Ok(CallToolResponse::InputRequired(result)) => result
            .input_requests
            .iter()
            .flat_map(|r| r.keys().cloned())
            .collect(),
        other => {
            return Verdict::Broken(format!(
                "expected {keys:?} asked again, got {}",
                describe(other)
            ));
        }
    };
    if let Some(key) = keys.iter().find(|key| !asked.iter().any(|a| a == *key)) {
        return Verdict::Broken(format!("`{key}` was not asked again (asked {asked:?})"));
    }
    match rerun(opened) {
        Some(why) => Verdict::Broken(why),
        None => Verdict::Held,
    }
}

pub(super) fn never_asked_modern(response: &Response, capability: &str) -> Verdict {
    match response {
        Ok(CallToolResponse::InputRequired(result)) => {
            let offending = result
                .input_requests
                .iter()
                .flatten()
                .filter(|(_, request)| capability_of(request) == capability)
                .map(|(key, _)| key.clone())
                .collect::<Vec<_>>();
            if offending.is_empty() {
                Verdict::Held
            } else {
                Verdict::Broken(format!(
                    "asked {offending:?}, which need `{capability}` the request did not declare"
                ))
            }
        }
        Ok(_) => Verdict::Held,
        Err(ServiceError::McpError(error)) if error.code.0 == MISSING_CAPABILITY => {
            let named = error
                .data
                .as_ref()
                .and_then(|data| data.get("requiredCapabilities"))
                .is_some_and(|required| !required.is_null());
            if named {
                Verdict::Held
            } else {
                Verdict::Broken("-32021 without data.requiredCapabilities".into())
            }
        }
        other => Verdict::Broken(format!(
            "expected a fallback or -32021, got {}",
            describe(other)
        )),
    }
}
