//! Every return type rmcp's `#[tool]` accepts keeps working under `#[mrtr_tool]`: text,
//! `CallToolResult`, `Json<T>` (with its output schema still listed), and `Result<_, E>` whose
//! `Err` becomes an error result — through a suspension, in both eras.

use mrtr::testing::*;
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Json, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Name {
    name: String,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Greeting {
    greeting: String,
}

#[derive(Clone)]
struct Shapes;

fn who(answer: Answer<Name>) -> String {
    match answer {
        Answer::Accept(Name { name }) => name,
        Answer::Decline | Answer::Cancel => "nobody".to_owned(),
    }
}

#[tool_router]
impl Shapes {
    #[mrtr_tool]
    #[tool(description = "plain text")]
    async fn as_string(&self) -> String {
        let name = ask!(name: elicit::<Name>("Your name?"));
        format!("hello {}", who(name))
    }

    #[mrtr_tool]
    #[tool(description = "a full result")]
    async fn as_result(&self) -> CallToolResult {
        let name = ask!(name: elicit::<Name>("Your name?"));
        CallToolResult::success(vec![ContentBlock::text(format!("hello {}", who(name)))])
    }

    #[mrtr_tool]
    #[tool(description = "structured output")]
    async fn as_json(&self) -> Result<Json<Greeting>, ErrorData> {
        let name = ask!(name: elicit::<Name>("Your name?"));
        Ok(Json(Greeting {
            greeting: format!("hello {}", who(name)),
        }))
    }

    #[mrtr_tool]
    #[tool(description = "a tool error after the ask")]
    async fn as_error(&self) -> Result<String, String> {
        let name = ask!(name: elicit::<Name>("Your name?"));
        Err(format!("cannot greet {}", who(name)))
    }
}

fn client() -> ScriptedClient {
    ScriptedClient::new(Caps::FORM_ONLY).on_elicit("Your name?", [accept(json!({ "name": "Ada" }))])
}

fn server() -> TestServer<Shapes> {
    TestServer::new(Shapes, Shapes::tool_router(), test_runtime("shapes"))
}

#[tokio::test]
async fn text_results_and_full_results_come_back_unchanged() {
    for era in ERAS {
        let session = connect(server(), client(), era).await;
        for tool in ["as_string", "as_result"] {
            let result = session.call(tool, json!({})).await.expect("completes");
            assert_eq!(text_of(&result), "hello Ada", "{era:?} {tool}");
            assert_ne!(result.is_error, Some(true));
        }
        session.close().await;
    }
}

#[tokio::test]
async fn json_results_keep_structured_content_and_the_output_schema() {
    let schema = Shapes::as_json_tool_attr()
        .output_schema
        .expect("the output schema is still derived");
    let schema = serde_json::to_value(&*schema).unwrap();
    assert_eq!(
        schema["properties"]["greeting"]["type"], "string",
        "{schema}"
    );
    for era in ERAS {
        let session = connect(server(), client(), era).await;
        let result = session.call("as_json", json!({})).await.expect("completes");
        assert_eq!(
            result.structured_content,
            Some(json!({ "greeting": "hello Ada" })),
            "{era:?}"
        );
        session.close().await;
    }
}

#[tokio::test]
async fn an_err_after_the_ask_is_a_tool_error_result() {
    for era in ERAS {
        let session = connect(server(), client(), era).await;
        let result = session
            .call("as_error", json!({}))
            .await
            .expect("a tool error is still a result");
        assert_eq!(result.is_error, Some(true), "{era:?}");
        assert_eq!(text_of(&result), "cannot greet Ada");
        session.close().await;
    }
}

#[test]
fn the_input_schema_still_comes_from_the_parameters() {
    let tool = Shapes::as_string_tool_attr();
    let schema: Value = serde_json::to_value(&*tool.input_schema).unwrap();
    assert_eq!(schema["type"], "object");
    assert_eq!(tool.description.as_deref(), Some("plain text"));
}
