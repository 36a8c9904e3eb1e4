use mrtr::{Answer, ClientCaps, ask, mrtr_helper, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Confirmation {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirmation);

#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]
pub struct Window {
    /// Minutes of downtime to schedule
    pub minutes: i64,
}
rmcp::elicit_safe!(Window);

/// The gate every destructive tool starts with: `None` to go on, `Some(result)` to stop.
#[mrtr_helper]
async fn confirm(caps: &ClientCaps, action: &str) -> Option<CallToolResult> {
    if !caps.elicitation_form() {
        return Some(text(format!("{action}: call again with confirm=true")));
    }
    match ask!(confirmation: elicit::<Confirmation>(format!("{action}?"))) {
        Answer::Accept(Confirmation { confirmed: true }) => None,
        _ => Some(text(format!("{action}: not confirmed"))),
    }
}

#[mrtr_tool]
#[tool_router]
impl Ops {
    #[mrtr_tool]
    #[tool(description = "Drop a database")]
    async fn drop_db(
        &self,
        Parameters(db): Parameters<Db>,
        caps: ClientCaps,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(stop) = ask!(confirm: confirm(&caps, &format!("drop {}", db.name)).await) {
            return Ok(stop);
        }
        self.drop(&db.name).await?;
        Ok(text(format!("dropped {}", db.name)))
    }

    #[mrtr_tool]
    #[tool(description = "Schedule maintenance")]
    async fn maintenance(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let window = match ask!(window: elicit::<Window>("How long?")) {
            Answer::Accept(window) => window.minutes,
            Answer::Cancel => return Ok(text("not scheduled")),
            Answer::Decline => 30,
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
