//! What the macro tells the runtime about one handler: a static table of its steps, emitted
//! beside the method. Resuming a step needs nothing of the handler but this table and its arm,
//! and a step's layout string is what makes a continuation from another build refuse to open.

/// Static facts about one lowered handler, emitted by the macro.
#[derive(Debug)]
pub struct Handler {
    /// `module_path!()::fn_name`, for logs.
    pub path: &'static str,
    /// The resume steps, in source order.
    pub steps: &'static [StepInfo],
    /// What the handler's asks can need from a client, as dotted capability paths
    /// (`elicitation.form`, `elicitation.url`, `sampling`, `roots`), derived from its `ask!`s.
    pub capabilities: &'static [&'static str],
}

/// One resume point of a lowered handler.
#[derive(Debug)]
pub struct StepInfo {
    /// The step enum's variant name, as sealed in `requestState`.
    pub name: &'static str,
    /// The wire keys asked at this step (`confirm#{i0}` for per-iteration keys).
    pub keys: &'static [&'static str],
    /// The locals carried to this step, in the order they are saved.
    pub carried: &'static [&'static str],
    /// Where the body resumes: the program counter of the step's arm.
    #[doc(hidden)]
    pub pc: u32,
    /// Which of the handler's slots the step carries (bit `i` = slot `i`).
    #[doc(hidden)]
    pub mask: u64,
    /// Handler path, step, keys and carried names: hashed with the slots' type names into the
    /// step's layout fingerprint.
    pub layout: &'static str,
}
