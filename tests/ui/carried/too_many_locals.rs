//! A continuation carries at most 64 locals per handler (one bit each in a step's slot mask).
use mrtr::{ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

#[derive(Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub service: String,
}

#[derive(Deserialize, serde::Serialize, mrtr::Elicit)]
pub struct Confirm {
    pub ok: bool,
}

pub struct Server;

#[tool_router]
impl Server {
    #[mrtr_tool]
    #[tool(description = "Sum")]
    async fn sum(&self, Parameters(args): Parameters<Args>) -> Result<String, ErrorData> {
        let v0 = 0u32;
        let v1 = 1u32;
        let v2 = 2u32;
        let v3 = 3u32;
        let v4 = 4u32;
        let v5 = 5u32;
        let v6 = 6u32;
        let v7 = 7u32;
        let v8 = 8u32;
        let v9 = 9u32;
        let v10 = 10u32;
        let v11 = 11u32;
        let v12 = 12u32;
        let v13 = 13u32;
        let v14 = 14u32;
        let v15 = 15u32;
        let v16 = 16u32;
        let v17 = 17u32;
        let v18 = 18u32;
        let v19 = 19u32;
        let v20 = 20u32;
        let v21 = 21u32;
        let v22 = 22u32;
        let v23 = 23u32;
        let v24 = 24u32;
        let v25 = 25u32;
        let v26 = 26u32;
        let v27 = 27u32;
        let v28 = 28u32;
        let v29 = 29u32;
        let v30 = 30u32;
        let v31 = 31u32;
        let v32 = 32u32;
        let v33 = 33u32;
        let v34 = 34u32;
        let v35 = 35u32;
        let v36 = 36u32;
        let v37 = 37u32;
        let v38 = 38u32;
        let v39 = 39u32;
        let v40 = 40u32;
        let v41 = 41u32;
        let v42 = 42u32;
        let v43 = 43u32;
        let v44 = 44u32;
        let v45 = 45u32;
        let v46 = 46u32;
        let v47 = 47u32;
        let v48 = 48u32;
        let v49 = 49u32;
        let v50 = 50u32;
        let v51 = 51u32;
        let v52 = 52u32;
        let v53 = 53u32;
        let v54 = 54u32;
        let v55 = 55u32;
        let v56 = 56u32;
        let v57 = 57u32;
        let v58 = 58u32;
        let v59 = 59u32;
        let v60 = 60u32;
        let v61 = 61u32;
        let v62 = 62u32;
        let v63 = 63u32;
        let v64 = 64u32;
        let _ok = ask!(confirm: elicit::<Confirm>(format!("Sum for {}?", args.service)));
        Ok((v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + v12 + v13 + v14 + v15 + v16 + v17 + v18 + v19 + v20 + v21 + v22 + v23 + v24 + v25 + v26 + v27 + v28 + v29 + v30 + v31 + v32 + v33 + v34 + v35 + v36 + v37 + v38 + v39 + v40 + v41 + v42 + v43 + v44 + v45 + v46 + v47 + v48 + v49 + v50 + v51 + v52 + v53 + v54 + v55 + v56 + v57 + v58 + v59 + v60 + v61 + v62 + v63 + v64).to_string())
    }
}

fn main() {}
