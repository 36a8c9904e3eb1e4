//! Carried locals: the values a continuation holds between rounds.
//!
//! The macro parks every local that is live at a suspension point in an untyped `Option` slot
//! and lets rustc infer the slot's type from the user's own statements. Every generated use of a
//! slot goes through the generic functions here, which add no constraints of their own; the
//! serde bounds live on [`Carry`] alone, checked once per slot by [`carry_vt`] at the user's
//! `let`, so a type that cannot travel is reported there in words that name the problem.
//!
//! Values are encoded as a sequence of CBOR items: self-describing (untagged enums,
//! `serde_json::Value`, maps with non-string keys all round-trip) and compact.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::MrtrError;

/// A local that can be saved in a continuation.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be carried across an `ask!`",
    label = "this local is used after an `ask!`, so it is saved in the continuation",
    note = "a carried local must be an owned value implementing `Serialize + DeserializeOwned + Send + 'static`; compute it again after the `ask!`, or move its last use before it"
)]
pub trait Carry: Serialize + DeserializeOwned + Send + 'static {}
impl<T: Serialize + DeserializeOwned + Send + 'static> Carry for T {}

/// The encode/decode pair of one slot's type, obtained where the bound is checked.
pub struct CarryVt<T> {
    encode: fn(&T, &mut Vec<u8>) -> Result<(), String>,
    decode: fn(&mut &[u8]) -> Result<T, String>,
}

impl<T> Clone for CarryVt<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for CarryVt<T> {}

/// States the carry bound for one slot; generated with the user's span.
pub fn carry_vt<T: Carry>(_slot: &Option<T>) -> CarryVt<T> {
    CarryVt {
        encode: |value, buffer| ciborium::into_writer(value, buffer).map_err(|e| e.to_string()),
        decode: |input| ciborium::from_reader(input).map_err(|e| e.to_string()),
    }
}

/// Moves a parked value out of its slot.
///
/// An empty slot means the lowering missed a put-back: a bug in `mrtr`, reported as an error
/// instead of a panic.
pub fn out<T>(slot: &mut Option<T>, name: &'static str) -> Result<T, MrtrError> {
    slot.take()
        .ok_or_else(|| MrtrError::Internal(format!("mrtr lowering bug: slot `{name}` is empty")))
}

/// The name rustc inferred for a slot's type; part of the layout fingerprint.
pub fn tn<T>(_slot: &Option<T>) -> &'static str {
    std::any::type_name::<T>()
}

/// FNV-1a 64 over the step's layout string and the type names of its carried slots.
///
/// It changes when keys, steps or carried types change, so a token minted by an older build is
/// rejected instead of being misread after a redeploy.
pub fn fingerprint(layout: &str, type_names: &[&str]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = OFFSET;
    let mut feed = |bytes: &[u8]| {
        for byte in bytes {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(PRIME);
        }
    };
    feed(layout.as_bytes());
    for name in type_names {
        feed(&[0]);
        feed(name.as_bytes());
    }
    hash
}

/// Collects the carried slots of one suspension, in the step's fixed order.
#[derive(Default)]
pub struct SlotWriter {
    buffer: Vec<u8>,
    /// The first failure of [`SlotWriter::keep`], reported once by `Io::suspend`.
    error: Option<MrtrError>,
}

impl SlotWriter {
    /// Like [`SlotWriter::put`], but keeps the first error for the suspension to report: the
    /// generated code then checks once per suspension instead of once per slot.
    pub fn keep<T>(&mut self, vt: &CarryVt<T>, name: &'static str, slot: &Option<T>) {
        if self.error.is_none()
            && let Err(error) = self.put(vt, name, slot)
        {
            self.error = Some(error);
        }
    }

    /// The encoded slots, or the first error [`SlotWriter::keep`] met.
    pub fn into_result(self) -> Result<Vec<u8>, MrtrError> {
        match self.error {
            Some(error) => Err(error),
            None => Ok(self.buffer),
        }
    }

    pub fn new() -> Self {
        Self::default()
    }

    pub fn put<T>(
        &mut self,
        vt: &CarryVt<T>,
        name: &'static str,
        slot: &Option<T>,
    ) -> Result<(), MrtrError> {
        let value = slot.as_ref().ok_or_else(|| {
            MrtrError::Internal(format!(
                "mrtr lowering bug: slot `{name}` is empty at suspension"
            ))
        })?;
        (vt.encode)(value, &mut self.buffer)
            .map_err(|e| MrtrError::Internal(format!("cannot encode carried local `{name}`: {e}")))
    }

    pub fn finish(self) -> Vec<u8> {
        self.buffer
    }
}

/// Reads carried slots back, in the order they were written.
pub struct SlotReader<'a> {
    rest: &'a [u8],
    /// The first failure of [`SlotReader::fill`], reported by [`SlotReader::finish`].
    error: Option<MrtrError>,
}

impl<'a> SlotReader<'a> {
    pub fn new(carried: &'a [u8]) -> Self {
        Self {
            rest: carried,
            error: None,
        }
    }

    /// Decodes the next carried local into its slot; the first error is kept for
    /// [`SlotReader::finish`], so the prologue checks once per step instead of once per slot.
    pub fn fill<T>(&mut self, vt: &CarryVt<T>, name: &'static str, slot: &mut Option<T>) {
        if self.error.is_none() {
            match self.take(vt, name) {
                Ok(value) => *slot = Some(value),
                Err(error) => self.error = Some(error),
            }
        }
    }

    pub fn take<T>(&mut self, vt: &CarryVt<T>, name: &'static str) -> Result<T, MrtrError> {
        (vt.decode)(&mut self.rest)
            .map_err(|e| MrtrError::RejectedState(format!("carried local `{name}`: {e}")))
    }

    /// Every byte must have been read: trailing data means the layout differs.
    pub fn finish(self) -> Result<(), MrtrError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(MrtrError::RejectedState(format!(
                "{} unread bytes after the carried locals",
                self.rest.len()
            )))
        }
    }
}

/// Reads an opened loop's iteration index while it is still parked: the resume arm rebuilds the
/// per-iteration wire key (`confirm#2`) before anything is taken out of its slot.
pub fn counter(slot: &Option<usize>, name: &'static str) -> Result<usize, MrtrError> {
    slot.ok_or_else(|| {
        MrtrError::Internal(format!("mrtr lowering bug: loop index `{name}` is empty"))
    })
}

/// The items a `for` loop with an `ask!` in its body has left: collected up front so that
/// they can be carried in the continuation and the loop can resume mid-iteration.
pub fn rest_of<I: IntoIterator>(items: I) -> std::collections::VecDeque<I::Item> {
    items.into_iter().collect()
}

/// A value flowing out of an `if`/`match`/loop that contains an `ask!`.
///
/// It waits in a slot of the handler's future, which lives across every `.await` of the
/// handler, so it must be `Send` even where the straight-line code dropped it before awaiting.
#[diagnostic::on_unimplemented(
    message = "`{Self}` flows out of a block that contains `ask!`, so it is kept across the handler's awaits and must be `Send`",
    label = "this value is kept in the handler's future",
    note = "bind a `Send` value here (for example an owned copy), or move the `!Send` value into the code after this `let`"
)]
pub trait Transfer: Send {}
impl<T: Send> Transfer for T {}

/// States the `Send` bound of one transfer slot; generated with the user's span.
pub fn transfer_slot<T: Transfer>(_slot: &Option<T>) {}
