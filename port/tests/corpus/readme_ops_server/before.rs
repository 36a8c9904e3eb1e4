use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::{ElicitationError, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Confirmation {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirmation);

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Window {
    /// Minutes of downtime to schedule
    pub minutes: i64,
}
rmcp::elicit_safe!(Window);

/// The gate every destructive tool starts with: `None` to go on, `Some(result)` to stop.
async fn confirm(context: &RequestContext<RoleServer>, action: &str) -> Option<CallToolResult> {
    if context.peer.supported_elicitation_modes().is_empty() {
        return Some(text(format!("{action}: call again with confirm=true")));
    }
    match context
        .peer
        .elicit::<Confirmation>(format!("{action}?"))
        .await
    {
        Ok(Some(Confirmation { confirmed: true })) => None,
        _ => Some(text(format!("{action}: not confirmed"))),
    }
}

#[tool_router]
impl Ops {
    #[tool(description = "Drop a database")]
    async fn drop_db(
        &self,
        Parameters(db): Parameters<Db>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(stop) = confirm(&context, &format!("drop {}", db.name)).await {
            return Ok(stop);
        }
        self.drop(&db.name).await?;
        Ok(text(format!("dropped {}", db.name)))
    }

    #[tool(description = "Schedule maintenance")]
    async fn maintenance(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let window = match peer.elicit::<Window>("How long?").await {
            Ok(Some(window)) => window.minutes,
            Ok(None) | Err(ElicitationError::UserCancelled) => return Ok(text("not scheduled")),
            Err(ElicitationError::UserDeclined) => 30,
            Err(e) => return Err(ErrorData::internal_error(e.to_string(), None)),
        };
        let id = self.schedule(window).await?;
        // Ask for feedback later, without holding up the result.
        tokio::spawn(async move {
            let _ = peer
                .elicit::<Confirmation>("Did the window suit you?")
                .await;
        });
        Ok(text(format!("scheduled {id}")))
    }
}

// What the README leaves out: the server and its back end.

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Db {
    pub name: String,
}

pub struct Ops;

impl Ops {
    async fn drop(&self, _name: &str) -> Result<(), ErrorData> {
        Ok(())
    }

    async fn schedule(&self, minutes: i64) -> Result<String, ErrorData> {
        Ok(format!("mw-{minutes}"))
    }
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}
