//! The runtime half of a lowered handler: one round of the generated state machine.
//!
//! Reading order: the method rmcp registers hands [`respond`] (`respond.rs`) the round's opening,
//! `ToolCall::open` (in `call`), which checks the incoming state and builds an [`Io`]
//! (`round.rs`), and the boxed lowered body to start on it. The body restores its slots with
//! [`Io::restore`]; registers asks with [`Io::ask`], decodes answers with [`Io::take`] and either
//! continues, awaits a legacy client ([`Io::ask_live`]) or returns [`Io::suspend`], whose
//! `Suspension` (`suspension.rs`) holds the continuation to seal. Every exit of the body is a
//! [`Flow`] in the user's own return type (`lift.rs`); [`respond`] turns it into rmcp's response,
//! sealing the suspension into `input_required`. The steps it resumes at are the macro's static
//! [`Handler`] table (`handler.rs`). A body lowered into a step function goes through
//! [`respond_steps`] instead, which awaits each of its waits between calls (`stepped.rs`).
//!
//! The split keeps per-handler code small: everything generic only over the return type lives
//! here and is compiled once per return type, not once per handler.

mod compose;
mod handler;
mod lift;
mod respond;
mod round;
mod stepped;
mod suspension;

pub use compose::{
    Call, Entry, Failing, Frame, FrameSlot, Poll, Settle, fail, finish, finish_option,
    finish_result, frame_slot,
};
pub use handler::{Handler, StepInfo, loop_key};
pub use lift::{Flow, Lift, Lifted, done};
pub use respond::{
    IntoReadResourceResponse, IntoResponse, Opening, PromptOutcome, respond, respond_local,
    respond_steps,
};
pub use round::{Io, Missing};
pub use stepped::{Callee, Mailbox, Pause, Runner, Steps, Turn, callee};
