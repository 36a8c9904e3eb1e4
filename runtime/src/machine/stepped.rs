//! A handler body with no `.await` of its own, lowered into a step function instead of an
//! `async fn`: every wait (a legacy client's answer, a helper's machine) is awaited by the
//! runtime's driver ([`respond_steps`](super::respond_steps)) between two calls of the step
//! function, so the handler compiles to a plain closure over its slots, not a coroutine.
//!
//! A coroutine per handler (its state layout, its resume function, LLVM's work on both) was most
//! of what a ported handler cost to build beyond the plain one; the driver's coroutine is
//! compiled once per return type.
//!
//! One call of the step function runs the dispatch loop until the body returns, suspends, or
//! must wait. To wait it hands its `Io` to the driver in a [`Pause`] and returns
//! [`Flow::Paused`]; the driver waits and calls it again with the `Io` back. [`Turn`] keeps where
//! the next call goes on: the restored step on the first call, the step's resume arm after a
//! legacy round, the same helper site after a callee ran.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;

use crate::carry::Slots;
use crate::unpoisoned::lock;

use super::compose::Frame;
use super::lift::{Flow, Lift, Lifted};
use super::round::Io;

/// A helper's machine, boxed with the arguments and frame its site took, run by the driver on
/// the round's `Io` and handing it back; its value goes to the site's [`Mailbox`].
pub type Callee<'a> = Box<dyn FnOnce(Io) -> BoxFuture<'a, Io> + Send + 'a>;

/// A lowered body as a step function: called with the round's `Io`, it runs to its next exit.
pub type Steps<'a, R> = Box<dyn FnMut(Io, &mut Pause<'a>) -> Lifted<R> + Send + 'a>;

/// What a step function leaves its driver when it returns [`Flow::Paused`]: the round's `Io`,
/// and the callee to run on it, if the wait is a helper rather than a legacy client.
pub struct Pause<'a> {
    io: Option<Io>,
    callee: Option<Callee<'a>>,
}

impl<'a> Pause<'a> {
    /// A helper site reached with no value yet: the driver runs `callee` on the `Io`, and the
    /// next call comes back to the same site.
    pub fn enter<T, E>(&mut self, io: Io, callee: Callee<'a>) -> Result<Flow<T>, E> {
        self.io = Some(io);
        self.callee = Some(callee);
        Ok(Flow::Paused)
    }
}

/// The machine a handler's step function enters at a helper site: a boxed future borrowing
/// its inputs, which the `#[mrtr_helper]` machine already is. Its first argument only bounds
/// `'x` by `'a` (a `&'x &'a ()` is well-formed only where `'a: 'x`), so that a method helper's
/// future may also borrow the `&'a self` it was entered on.
pub type Runner<'a, C, R> = Box<
    dyn for<'x> FnOnce(
            &'x &'a (),
            &'x str,
            &'x mut Option<C>,
            &'x mut Option<Frame>,
            &'x mut Io,
        ) -> BoxFuture<'x, Option<R>>
        + Send
        + 'a,
>;

/// Where a helper site's callee leaves its frame and value for the site's next call: the
/// callee runs inside the driver, outside the step function's borrow of its own slots. Empty
/// until the site first enters its callee, so that a handler builds it without a call.
pub struct Mailbox<R>(Option<Arc<Mutex<Delivered<R>>>>);

type Delivered<R> = Option<(Option<Frame>, Option<R>)>;

impl<R> Mailbox<R> {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Mailbox(None)
    }

    /// The callee's value once it ran (`Some(None)`: it suspended, its frame now in `frame`,
    /// or failed, its failure in `Io`); `None` while the site has yet to enter it.
    pub fn received(&self, frame: &mut Option<Frame>) -> Option<Option<R>> {
        let (left, value) = lock(self.0.as_ref()?).take()?;
        *frame = left;
        Some(value)
    }

    fn sender(&mut self) -> Arc<Mutex<Delivered<R>>> {
        Arc::clone(self.0.get_or_insert_with(|| Arc::new(Mutex::new(None))))
    }
}

/// A helper site's callee, taking the site's arguments and carried frame with it: run by the
/// driver, it leaves its frame and value in `mailbox`.
pub fn callee<'a, C, R>(
    site: &str,
    call: &mut Option<C>,
    frame: &mut Option<Frame>,
    mailbox: &mut Mailbox<R>,
    run: Runner<'a, C, R>,
) -> Callee<'a>
where
    C: Send + 'a,
    R: Send + 'a,
{
    let (site, mut call, mut frame) = (site.to_owned(), call.take(), frame.take());
    let mailbox = mailbox.sender();
    Box::new(move |mut io: Io| {
        Box::pin(async move {
            let value = run(&&(), &site, &mut call, &mut frame, &mut io).await;
            *lock(&mailbox) = Some((frame, value));
            io
        })
    })
}

/// Where a step function's next call goes on.
pub struct Turn {
    begun: bool,
    /// The step a legacy round left at: the next call resumes its arm.
    waited: Option<usize>,
}

impl Turn {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Turn {
            begun: false,
            waited: None,
        }
    }

    /// The program counter to dispatch on: the restored step (or `start`) on the first call,
    /// the resume arm of the step a legacy round waited at, else `pc` as the last call left it
    /// (a helper site, now with its callee's value in the mailbox).
    pub fn pc(&mut self, io: &mut Io, slots: &mut impl Slots, pc: u32, start: u32) -> u32 {
        if !self.begun {
            self.begun = true;
            return io.restore(slots, start);
        }
        match self.waited.take() {
            Some(step) => io.resume_pc(step),
            None => pc,
        }
    }

    /// The dispatch loop left at `step`: wait for a legacy client, or end the round there
    /// (suspended, or failed with the failure `Io` kept).
    pub fn exit<T, E>(
        &mut self,
        io: Io,
        slots: &mut impl Slots,
        step: usize,
        pause: &mut Pause<'_>,
    ) -> Result<Flow<T>, E> {
        if io.asks_live() {
            self.waited = Some(step);
            pause.io = Some(io);
            return Ok(Flow::Paused);
        }
        Ok(io.suspend(slots, step))
    }
}

/// Runs a step function on the opened round to its outcome, doing every wait it pauses for.
pub(super) async fn drive<R: Lift>(mut io: Io, mut body: Steps<'_, R>) -> Lifted<R> {
    let mut pause = Pause {
        io: None,
        callee: None,
    };
    loop {
        match body(io, &mut pause) {
            Ok(Flow::Paused) => {}
            other => return other,
        }
        let Some(paused) = pause.io.take() else {
            return Ok(Flow::Fail(crate::error::MrtrError::Internal(
                "mrtr lowering bug: a step function paused without its round".into(),
            )));
        };
        io = match pause.callee.take() {
            Some(callee) => callee(paused).await,
            None => {
                let mut paused = paused;
                paused.ask_live().await;
                paused
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mailbox_hands_over_the_callees_frame_and_value_once() {
        let mut mailbox = Mailbox::<u32>::new();
        let mut frame = None;
        assert!(
            mailbox.received(&mut frame).is_none(),
            "nothing before the entry"
        );
        let sender = mailbox.sender();
        *lock(&sender) = Some((None, Some(7)));
        assert_eq!(mailbox.received(&mut frame), Some(Some(7)));
        assert!(mailbox.received(&mut frame).is_none(), "taken once");
        // The same mailbox serves the site's next entry (a helper in a loop).
        assert!(Arc::ptr_eq(&sender, &mailbox.sender()));
    }

    #[test]
    fn a_pause_reaching_the_response_is_an_internal_error_not_a_panic() {
        use rmcp::model::{CallToolResponse, CallToolResult};
        let out: Lifted<CallToolResult> = Ok(Flow::Paused);
        let error = super::super::respond::outcome::<CallToolResult, CallToolResponse>(out)
            .expect_err("a paused body has no response");
        assert_eq!(error.code, rmcp::model::ErrorCode::INTERNAL_ERROR);
    }
}
