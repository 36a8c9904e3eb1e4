//! The user's return type, lifted so that a lowered body can end in three ways (returned,
//! suspended, failed) and every `?` in it still converts into the user's own error type.

use crate::error::MrtrError;

use super::suspension::Suspension;

/// How one run of the body ended.
pub enum Flow<T> {
    /// The body returned.
    Done(T),
    /// The body reached asks it has no answers for; carries the continuation to seal.
    Suspend(Box<Suspension>),
    /// The runtime refused to go on (bad state, missing capability, client failure).
    Fail(MrtrError),
    /// A step function waits: its `Io` is in the driver's `Pause` (see `stepped.rs`). No other
    /// body returns it.
    Paused,
}

/// The user's return type, split so that the lowered body can return `Result<Flow<T>, E>` and
/// every `?` in it keeps converting into the user's own error type.
pub trait Lift: Sized {
    type Ok;
    type Err;
    fn split(self) -> Result<Self::Ok, Self::Err>;
    fn join(result: Result<Self::Ok, Self::Err>) -> Self;
}

impl<T, E> Lift for Result<T, E> {
    type Ok = T;
    type Err = E;
    fn split(self) -> Self {
        self
    }
    fn join(result: Self) -> Self {
        result
    }
}

macro_rules! lift_infallible {
    ($ty:ty $(, for $($generic:ident),*)?) => {
        impl$(<$($generic),*>)? Lift for $ty {
            type Ok = Self;
            type Err = std::convert::Infallible;
            fn split(self) -> Result<Self, std::convert::Infallible> {
                Ok(self)
            }
            fn join(result: Result<Self, std::convert::Infallible>) -> Self {
                match result {
                    Ok(value) => value,
                    Err(never) => match never {},
                }
            }
        }
    };
}

// The non-`Result` return types rmcp's routers accept; `Result<T, E>` is split above.
lift_infallible!(String);
lift_infallible!(&'static str);
lift_infallible!(rmcp::model::CallToolResult);
lift_infallible!(rmcp::model::CallToolResponse);
lift_infallible!(rmcp::model::ContentBlock);
lift_infallible!(Vec<rmcp::model::ContentBlock>);
lift_infallible!(rmcp::model::GetPromptResult);
lift_infallible!(rmcp::model::GetPromptResponse);
lift_infallible!(Vec<rmcp::model::PromptMessage>);
lift_infallible!(rmcp::model::ReadResourceResult);
lift_infallible!(rmcp::Json<T>, for T);

/// What the lowered body returns for a handler whose written return type is `R`.
pub type Lifted<R> = Result<Flow<<R as Lift>::Ok>, <R as Lift>::Err>;

/// Every `return` and the tail of a lowered body go through here.
pub fn done<R: Lift>(value: R) -> Lifted<R> {
    value.split().map(Flow::Done)
}
