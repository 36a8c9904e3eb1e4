//! Composed machines: an `#[mrtr_helper]` is a machine of its own, entered from a call site in a
//! lowered handler or in another helper.
//!
//! The call site evaluates the helper's arguments once into a [`Call`]; its resume arm enters the
//! helper with an [`Entry`]: `Start` with those arguments, or, on a retry, `Resume` with the
//! [`Frame`] the caller carried. The helper runs the same dispatch loop as a handler and ends in a
//! [`Poll`]: done with its value, suspended at one of its own steps (the frame goes into the
//! caller's continuation), or failed. Keys a helper asks are prefixed with the call site's key
//! (`Io::enter`), so one helper asked from two sites, or in a loop, never mixes its answers.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::Context;

use serde::{Deserialize, Serialize};

use crate::error::MrtrError;

use super::lift::Flow;

/// A call into an `#[mrtr_helper]`: its arguments, evaluated once where it is called.
///
/// Not a future: the call only runs as `ask!(site: helper(..).await)` inside an
/// `#[mrtr_tool]` or `#[mrtr_helper]` body, where the lowering can suspend the caller while the
/// helper waits for its client.
#[must_use = "an `#[mrtr_helper]` call does nothing until it is asked: `let x = ask!(site: helper(..).await);`"]
pub struct Call<A, R> {
    args: A,
    output: PhantomData<fn() -> R>,
}

impl<A, R> Call<A, R> {
    #[doc(hidden)]
    pub fn new(args: A) -> Self {
        Call {
            args,
            output: PhantomData,
        }
    }
}

/// Never implemented: it only carries the message rustc shows when a [`Call`] is awaited.
#[diagnostic::on_unimplemented(
    message = "an `#[mrtr_helper]` call cannot be `.await`ed on its own",
    label = "this is a call into an `#[mrtr_helper]`, which may end the round to ask the client",
    note = "inside an `#[mrtr_tool]` or `#[mrtr_helper]` body write `let x = ask!(site: helper(..).await);` (the helper's keys become `site.key`)"
)]
pub trait AwaitedOnlyInsideAsk {}

impl<A: AwaitedOnlyInsideAsk, R> Future for Call<A, R> {
    type Output = R;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> std::task::Poll<R> {
        unreachable!("`AwaitedOnlyInsideAsk` has no implementation")
    }
}

/// How a helper is entered: fresh from its call site (its arguments), or resumed from the frame
/// its caller carried.
pub struct Entry<A, R> {
    start: Option<A>,
    frame: Option<Frame>,
    output: PhantomData<fn() -> R>,
}

impl<A, R> Entry<A, R> {
    /// `call` when the site was just reached in this round, else the carried frame.
    pub fn new(call: &mut Option<Call<A, R>>, frame: &mut Option<Frame>) -> Self {
        let start = call.take().map(|call| call.args);
        // A fresh entry never resumes: a frame left from an earlier pass is stale.
        let frame = frame.take().filter(|_| start.is_none());
        Entry {
            start,
            frame,
            output: PhantomData,
        }
    }

    /// The arguments of a fresh entry, and the frame of a resumed one.
    pub fn open(self) -> (Option<A>, Option<Frame>) {
        (self.start, self.frame)
    }
}

/// A helper suspended at one of its steps: what its caller carries for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// The helper's step (its step table's name).
    pub(crate) step: String,
    /// The helper's layout fingerprint for that step.
    pub(crate) fingerprint: u64,
    /// The helper's carried locals at that step, in its slot order.
    #[serde(with = "bytes")]
    pub(crate) carried: Vec<u8>,
}

/// How one entry of a helper ended.
pub enum Poll<T> {
    Done(T),
    Suspend(Frame),
    Fail(MrtrError),
}

/// A lowered helper's return value, as its caller sees it: the helper's own return type `R`
/// once done. The lowered body returns `Result<Poll<T>, E>` for a written `Result<T, E>` (so
/// that `?` inside it keeps converting into `E`), `Option<Poll<T>>` for `Option<T>`, and
/// `Poll<R>` otherwise.
pub trait Settle<R> {
    fn settle(self) -> Poll<R>;
}

impl<T, E> Settle<Result<T, E>> for Result<Poll<T>, E> {
    fn settle(self) -> Poll<Result<T, E>> {
        match self {
            Ok(Poll::Done(value)) => Poll::Done(Ok(value)),
            Err(error) => Poll::Done(Err(error)),
            Ok(Poll::Suspend(frame)) => Poll::Suspend(frame),
            Ok(Poll::Fail(error)) => Poll::Fail(error),
        }
    }
}

impl<T> Settle<Option<T>> for Option<Poll<T>> {
    fn settle(self) -> Poll<Option<T>> {
        match self {
            Some(Poll::Done(value)) => Poll::Done(Some(value)),
            None => Poll::Done(None),
            Some(Poll::Suspend(frame)) => Poll::Suspend(frame),
            Some(Poll::Fail(error)) => Poll::Fail(error),
        }
    }
}

impl<R> Settle<R> for Poll<R> {
    fn settle(self) -> Poll<R> {
        self
    }
}

/// A helper written to return `Result<T, E>` returns this.
pub fn finish_result<T, E>(value: Result<T, E>) -> Result<Poll<T>, E> {
    value.map(Poll::Done)
}

/// A helper written to return `Option<T>` returns this.
pub fn finish_option<T>(value: Option<T>) -> Option<Poll<T>> {
    value.map(Poll::Done)
}

/// A helper written to return anything else returns this.
pub fn finish<T>(value: T) -> Poll<T> {
    Poll::Done(value)
}

/// What a lowered body (handler or helper) returns when the runtime refuses to go on.
pub trait Failing {
    fn failing(error: MrtrError) -> Self;
}

/// The runtime's error out of any lowered body: `return fail(error)`.
pub fn fail<L: Failing>(error: MrtrError) -> L {
    L::failing(error)
}

impl<T, E> Failing for Result<Flow<T>, E> {
    fn failing(error: MrtrError) -> Self {
        Ok(Flow::Fail(error))
    }
}

impl<T, E> Failing for Result<Poll<T>, E> {
    fn failing(error: MrtrError) -> Self {
        Ok(Poll::Fail(error))
    }
}

impl<T> Failing for Option<Poll<T>> {
    fn failing(error: MrtrError) -> Self {
        Some(Poll::Fail(error))
    }
}

impl<T> Failing for Poll<T> {
    fn failing(error: MrtrError) -> Self {
        Poll::Fail(error)
    }
}

/// A frame's carried bytes as one CBOR byte string (not an array of numbers).
mod bytes {
    use serde::de::{Deserializer, Error, SeqAccess, Visitor};
    use serde::ser::Serializer;

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        deserializer.deserialize_byte_buf(BytesVisitor)
    }

    struct BytesVisitor;

    impl<'de> Visitor<'de> for BytesVisitor {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a byte string")
        }

        fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }

        fn visit_byte_buf<E: Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            let mut out = Vec::new();
            while let Some(byte) = seq.next_element()? {
                out.push(byte);
            }
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_round_trips_through_cbor_as_a_byte_string() {
        let frame = Frame {
            step: "AfterConfirm".into(),
            fingerprint: u64::MAX,
            carried: vec![1, 2, 3, 250],
        };
        let mut buffer = Vec::new();
        ciborium::into_writer(&frame, &mut buffer).expect("encode");
        let back: Frame = ciborium::from_reader(buffer.as_slice()).expect("decode");
        assert_eq!(back, frame);
        // A byte string: the four bytes follow one header byte, not one item per number.
        assert!(buffer.windows(5).any(|w| w == [0x44, 1, 2, 3, 250]));
    }

    #[test]
    fn an_entry_starts_once_then_resumes_from_the_frame() {
        let mut call = Some(Call::<(u32,), bool>::new((7,)));
        let mut frame = Some(Frame {
            step: "stale".into(),
            fingerprint: 0,
            carried: Vec::new(),
        });
        let (args, restored) = Entry::new(&mut call, &mut frame).open();
        assert_eq!((args, restored), (Some((7,)), None));
        assert!(frame.is_none(), "a fresh entry drops a stale frame");
        let resumed = Frame {
            step: "AfterConfirm".into(),
            fingerprint: 1,
            carried: Vec::new(),
        };
        let (args, restored) =
            Entry::<(u32,), bool>::new(&mut None, &mut Some(resumed.clone())).open();
        assert_eq!((args, restored), (None, Some(resumed)));
    }

    #[test]
    fn a_result_helper_settles_its_error_as_a_value() {
        let settled = Settle::<Result<u8, String>>::settle(Err::<Poll<u8>, _>("no".to_owned()));
        assert!(matches!(settled, Poll::Done(Err(e)) if e == "no"));
        let settled = Settle::<Option<u8>>::settle(None::<Poll<u8>>);
        assert!(matches!(settled, Poll::Done(None)));
    }
}
