// `?` in a helper whose return type hides its `Result` behind an alias: the lowering wraps the
// success type, which it cannot see.
use mrtr::{Answer, ask, mrtr_helper};

#[derive(serde::Serialize, serde::Deserialize, mrtr::Elicit)]
struct Code {
    code: String,
}

type Checked = Result<String, String>;

fn validate(code: String) -> Result<String, String> {
    Ok(code)
}

#[mrtr_helper]
async fn code() -> Checked {
    let answer = ask!(code: elicit::<Code>("code?"));
    let Answer::Accept(Code { code }) = answer else {
        return Err("no code".into());
    };
    let code = validate(code)?;
    Ok(code)
}

fn main() {}
