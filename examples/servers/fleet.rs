//! `deploy_service` and `summarize_incidents` with `release_notes` beside them, in one server:
//! what each instance of the fleet harness (`scripts/fleet.sh`) serves, so that one load
//! balancer fronts every multi-round flow of the examples.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::ops::Ops;
use crate::servers::deploy_service::Deployer;
use crate::servers::release_notes::Releaser;

/// Routes `release_notes` to the [`Releaser`], every other tool to the [`Deployer`].
#[derive(Clone)]
pub struct FleetServer {
    deployer: Deployer,
    releaser: Releaser,
}

impl FleetServer {
    pub fn new(ops: Ops) -> Self {
        FleetServer {
            deployer: Deployer::new(ops.clone()),
            releaser: Releaser::new(ops),
        }
    }
}

impl ServerHandler for FleetServer {
    fn get_info(&self) -> ServerConfig {
        self.deployer.get_info()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = self
            .deployer
            .list_tools(request.clone(), context.clone())
            .await?;
        let more = self.releaser.list_tools(request, context).await?;
        tools.tools.extend(more.tools);
        Ok(tools)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == "release_notes" {
            self.releaser.call_tool(request, context).await
        } else {
            self.deployer.call_tool(request, context).await
        }
    }
}
