//! `resources/read` through `#[mrtr_tool(resource)]`: rmcp has no resource router, so the
//! server's own `read_resource` builds a `ResourceCall` and calls the lowered method. Both eras;
//! the continuation is bound to the URI.

use mrtr::testing::*;
use mrtr::{Answer, ResourceCall, ask, mrtr_tool};
use rmcp::model::{
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, ServiceError};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;

#[derive(Debug, Clone, serde::Deserialize, mrtr::Elicit)]
struct Section {
    /// Which part of the report
    name: String,
}

#[derive(Clone)]
struct Reports {
    effects: Effects,
}

impl Reports {
    #[mrtr_tool(resource)]
    async fn read_report(&self, uri: String) -> Result<ReadResourceResult, ErrorData> {
        self.effects.record(format!("load {uri}"));
        let section = ask!(section: elicit::<Section>(format!("Which section of {uri}?")));
        let text = match section {
            Answer::Accept(Section { name }) => format!("{uri}#{name}"),
            Answer::Decline | Answer::Cancel => format!("{uri} (whole report)"),
        };
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            text, uri,
        )]))
    }
}

impl ServerHandler for Reports {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_resources().build())
    }

    async fn read_resource(
        &self,
        mut request: ReadResourceRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        context.extensions.insert(test_runtime("reports"));
        let call = ResourceCall::new(&mut request, context);
        self.read_report(call, request.uri).await
    }
}

fn text_of_resource(result: &ReadResourceResult) -> String {
    serde_json::to_value(&result.contents).unwrap()[0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_resource_read_asks_then_returns_the_contents_in_both_eras() {
    for era in ERAS {
        let effects = Effects::default();
        let client = ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Which section", [accept(json!({ "name": "summary" }))]);
        let session = connect(
            Reports {
                effects: effects.clone(),
            },
            client,
            era,
        )
        .await;
        let result = session
            .read_resource("report://q3")
            .await
            .expect("the read completes");
        assert_eq!(text_of_resource(&result), "report://q3#summary", "{era:?}");
        assert_eq!(effects.count("load report://q3"), 1, "{era:?}: loaded once");
        session.close().await;
    }
}

#[tokio::test]
async fn a_continuation_for_one_uri_is_refused_for_another() {
    let effects = Effects::default();
    let session = connect(
        Reports {
            effects: effects.clone(),
        },
        ScriptedClient::new(Caps::FORM_ONLY),
        Era::Modern,
    )
    .await;
    let first = match session.read_resource_once("report://q3", None, None).await {
        Ok(ReadResourceResponse::InputRequired(result)) => result,
        other => panic!("expected input_required, got {other:?}"),
    };
    let answer = json!({ "section": { "action": "accept", "content": { "name": "summary" } } });
    match session
        .read_resource_once("report://q4", Some(answer), first.request_state.clone())
        .await
    {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code.0, -32602),
        other => panic!("expected -32602, got {other:?}"),
    }
    session.close().await;
}
