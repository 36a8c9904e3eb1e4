//! Composed machines: an `#[mrtr_helper]` is a machine of its own, entered from a call site in a
//! lowered handler or in another helper.
//!
//! The call site evaluates the helper's arguments once into a [`Call`]; its resume arm calls the
//! helper's machine with that call and the caller's frame slot, and the machine enters itself (once
//! per helper, not at every site) with an [`Entry`]: its arguments when fresh, or, on a retry, the
//! [`Frame`] the caller carried. The helper runs the same dispatch loop as a handler and ends in a
//! [`Poll`]: done with its value, suspended at one of its own steps (the frame goes into the
//! caller's continuation), or failed; `Io::settled` hands the call site its value, or leaves the
//! frame in the caller's slot and the failure in `Io` for the site's step exit. Keys a helper asks
//! are prefixed with the call site's key (`Io::enter`), so one helper asked from two sites, or in a
//! loop, never mixes its answers.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::Context;

use crate::carry::{ErasedSlot, Slots};
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

/// A helper suspended at one of its steps: what its caller carries for it, in the caller's
/// [`FrameSlot`].
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The helper's step: its index in the helper's step table (the layout fingerprint names
    /// the step, so an index that means another step in another build is refused).
    pub(crate) step: u32,
    /// The helper's layout fingerprint for that step.
    pub(crate) fingerprint: u64,
    /// The helper's carried locals at that step, in its slot order.
    pub(crate) carried: Vec<u8>,
}

impl Frame {
    pub(crate) fn new(step: u32, fingerprint: u64, carried: Vec<u8>) -> Self {
        Frame {
            step,
            fingerprint,
            carried,
        }
    }

    pub(crate) fn into_carried(self) -> Vec<u8> {
        self.carried
    }
}

/// The caller's slot for a callee's frame. Encoded by hand as one CBOR item, the array
/// `[step, fingerprint, carried]`: a frame is saved and restored at every nested suspension, and
/// serde's generic path (a map with field names, a 4 KiB scratch buffer per decode) cost more
/// than the sealing it rides on.
pub struct FrameSlot {
    pub value: Option<Frame>,
}

/// An empty frame slot, for each helper site of a lowered body.
pub const fn frame_slot() -> FrameSlot {
    FrameSlot { value: None }
}

impl ErasedSlot for FrameSlot {
    fn type_name(&self) -> &'static str {
        "mrtr::Frame"
    }

    fn save(&self, buffer: &mut Vec<u8>) -> Result<bool, String> {
        let Some(frame) = &self.value else {
            return Ok(false);
        };
        frame.encode(buffer);
        Ok(true)
    }

    fn restore(&mut self, input: &mut &[u8]) -> Result<(), String> {
        self.value = Some(Frame::decode(input)?);
        Ok(())
    }
}

impl Slots for FrameSlot {
    fn each(&mut self, f: &mut dyn FnMut(&mut dyn ErasedSlot)) {
        f(self)
    }
}

impl Frame {
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        out.push(0x83); // an array of three
        cbor::head(out, cbor::UINT, u64::from(self.step));
        cbor::head(out, cbor::UINT, self.fingerprint);
        cbor::head(out, cbor::BYTES, self.carried.len() as u64);
        out.extend_from_slice(&self.carried);
    }

    pub(crate) fn decode(input: &mut &[u8]) -> Result<Frame, String> {
        if cbor::read_head(input, cbor::ARRAY)? != 3 {
            return Err("a helper frame is an array of three".into());
        }
        let step = u32::try_from(cbor::read_head(input, cbor::UINT)?)
            .map_err(|_| "a helper frame's step is out of range".to_owned())?;
        let fingerprint = cbor::read_head(input, cbor::UINT)?;
        let len = usize::try_from(cbor::read_head(input, cbor::BYTES)?)
            .map_err(|_| "a helper frame is too long".to_owned())?;
        if input.len() < len {
            return Err("a helper frame ends early".into());
        }
        let (carried, rest) = input.split_at(len);
        *input = rest;
        Ok(Frame::new(step, fingerprint, carried.to_vec()))
    }
}

/// The three CBOR heads a frame uses (RFC 8949 §3.1).
mod cbor {
    pub const UINT: u8 = 0;
    pub const BYTES: u8 = 2;
    pub const ARRAY: u8 = 4;

    pub fn head(out: &mut Vec<u8>, major: u8, value: u64) {
        let major = major << 5;
        match value {
            0..=23 => out.push(major | value as u8),
            24..=0xff => out.extend([major | 24, value as u8]),
            0x100..=0xffff => {
                out.push(major | 25);
                out.extend((value as u16).to_be_bytes());
            }
            0x1_0000..=0xffff_ffff => {
                out.push(major | 26);
                out.extend((value as u32).to_be_bytes());
            }
            _ => {
                out.push(major | 27);
                out.extend(value.to_be_bytes());
            }
        }
    }

    /// The argument of the next head, which must be of type `major`.
    pub fn read_head(input: &mut &[u8], major: u8) -> Result<u64, String> {
        let (&first, rest) = input
            .split_first()
            .ok_or_else(|| "a helper frame ends early".to_owned())?;
        if first >> 5 != major {
            return Err(format!(
                "a helper frame holds CBOR type {} where {major} belongs",
                first >> 5
            ));
        }
        let width = match first & 0x1f {
            info @ 0..=23 => {
                *input = rest;
                return Ok(u64::from(info));
            }
            24 => 1,
            25 => 2,
            26 => 4,
            27 => 8,
            _ => return Err("a helper frame uses an indefinite or reserved length".into()),
        };
        if rest.len() < width {
            return Err("a helper frame ends early".into());
        }
        let (bytes, rest) = rest.split_at(width);
        *input = rest;
        Ok(bytes
            .iter()
            .fold(0, |value, &b| (value << 8) | u64::from(b)))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_round_trips_and_reads_as_plain_cbor() {
        for (step, fingerprint, len) in [(0, 0, 0), (3, 23, 24), (300, u64::MAX, 70_000)] {
            let frame = Frame::new(step, fingerprint, vec![7; len]);
            let mut slot = frame_slot();
            slot.value = Some(frame.clone());
            let mut buffer = Vec::new();
            assert_eq!(slot.save(&mut buffer), Ok(true));
            // Any CBOR reader sees the same array.
            let value: ciborium::Value = ciborium::from_reader(buffer.as_slice()).expect("CBOR");
            let items = value.as_array().expect("an array");
            assert_eq!(items[2].as_bytes().map(Vec::len), Some(len));
            let mut input = buffer.as_slice();
            let mut back = frame_slot();
            back.restore(&mut input).expect("decodes");
            assert_eq!((back.value, input.len()), (Some(frame), 0));
        }
    }

    #[test]
    fn a_malformed_frame_is_an_error_not_a_panic() {
        let mut full = Vec::new();
        Frame::new(1, 2, vec![1, 2, 3]).encode(&mut full);
        for cut in 0..full.len() {
            let mut input = &full[..cut];
            assert!(Frame::decode(&mut input).is_err(), "cut at {cut}");
        }
        for bad in [&[0x82u8, 0, 0][..], &[0x83, 0x40], &[0x83, 0x1f], &[0x9f]] {
            let mut input = bad;
            assert!(Frame::decode(&mut input).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn an_entry_starts_once_then_resumes_from_the_frame() {
        let mut call = Some(Call::<(u32,), bool>::new((7,)));
        let mut frame = Some(Frame::new(9, 0, Vec::new()));
        let (args, restored) = Entry::new(&mut call, &mut frame).open();
        assert_eq!((args, restored), (Some((7,)), None));
        assert!(frame.is_none(), "a fresh entry drops a stale frame");
        let resumed = Frame::new(0, 1, Vec::new());
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
