//! Carried locals: the values a continuation holds between rounds.
//!
//! The macro parks every local that is live at a suspension point in a slot whose type rustc
//! infers from the user's own statements. The serde bounds live on [`Carry`] alone, checked once
//! per slot by [`slot`] at the user's `let`, so a type that cannot travel is reported there in
//! words that name the problem.
//!
//! Values are encoded as a sequence of CBOR items: self-describing (untagged enums,
//! `serde_json::Value`, maps with non-string keys all round-trip) and compact.

use std::any::TypeId;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::cbor;
use crate::error::MrtrError;

mod fingerprint;

pub(crate) use fingerprint::step_fingerprint;

/// A local that can be saved in a continuation.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be carried across an `ask!`",
    label = "this local is used after an `ask!`, so it is saved in the continuation",
    note = "a carried local must be an owned value implementing `Serialize + DeserializeOwned + Send + 'static`; compute it again after the `ask!`, or move its last use before it"
)]
pub trait Carry: Serialize + DeserializeOwned + Send + 'static {}
impl<T: Serialize + DeserializeOwned + Send + 'static> Carry for T {}

/// One carried local's slot: the parked value and the encode/decode pair of its type.
///
/// The pair is taken where the `Carry` bound is checked ([`slot`], spanned at the user's `let`),
/// so the runtime can save and restore a whole step through [`Slots`] without naming `T`.
pub struct Slot<T> {
    pub value: Option<T>,
    encode: fn(&T, &mut Vec<u8>) -> Result<(), String>,
    decode: fn(&mut &[u8]) -> Result<T, String>,
}

/// An empty slot for a carried local; generated with the user's span so that a type that cannot
/// travel is reported at its `let`.
pub const fn slot<T: Carry>() -> Slot<T> {
    Slot {
        value: None,
        encode: |value, buffer| cbor::to_vec(value, buffer).map_err(|e| e.0),
        decode: |input| cbor::from_slice(input).map_err(|e| e.0),
    }
}

/// A slot seen without its type: what saving, restoring and fingerprinting need.
pub trait ErasedSlot {
    fn type_name(&self) -> &'static str;
    /// Appends the parked value; `Ok(false)` when the slot is empty.
    fn save(&self, buffer: &mut Vec<u8>) -> Result<bool, String>;
    fn restore(&mut self, input: &mut &[u8]) -> Result<(), String>;
}

impl<T> ErasedSlot for Slot<T> {
    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }

    fn save(&self, buffer: &mut Vec<u8>) -> Result<bool, String> {
        match &self.value {
            Some(value) => (self.encode)(value, buffer).map(|()| true),
            None => Ok(false),
        }
    }

    fn restore(&mut self, input: &mut &[u8]) -> Result<(), String> {
        self.value = Some((self.decode)(input)?);
        Ok(())
    }
}

/// A handler's carried slots: one [`Slot`] or a tuple of them (nested for more than twelve), in
/// the order the macro numbered them. Each step selects its slots with a bit mask over that order.
///
/// Keeping the save/restore loops here, behind `dyn`, leaves the generated body one call per
/// step instead of code per slot: that code is what dominated a ported crate's build time.
pub trait Slots: 'static {
    fn each(&mut self, f: &mut dyn FnMut(&mut dyn ErasedSlot));

    /// The concrete type of these slots: it fixes their type names, so a step's fingerprint is
    /// remembered by it instead of by walking the slots (see `fingerprint`).
    fn type_key(&self) -> TypeId {
        TypeId::of::<Self>()
    }
}

impl<T: 'static> Slots for Slot<T> {
    fn each(&mut self, f: &mut dyn FnMut(&mut dyn ErasedSlot)) {
        f(self)
    }
}

macro_rules! tuple_slots {
    ($($name:ident . $index:tt),*) => {
        impl<$($name: Slots),*> Slots for ($($name,)*) {
            #[allow(unused_variables)]
            fn each(&mut self, f: &mut dyn FnMut(&mut dyn ErasedSlot)) {
                $(self.$index.each(f);)*
            }
        }
    };
}

tuple_slots!();
tuple_slots!(A.0);
tuple_slots!(A.0, B.1);
tuple_slots!(A.0, B.1, C.2);
tuple_slots!(A.0, B.1, C.2, D.3);
tuple_slots!(A.0, B.1, C.2, D.3, E.4);
tuple_slots!(A.0, B.1, C.2, D.3, E.4, F.5);
tuple_slots!(A.0, B.1, C.2, D.3, E.4, F.5, G.6);
tuple_slots!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7);
tuple_slots!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8);
tuple_slots!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9);
tuple_slots!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9, K.10);
tuple_slots!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9, K.10, L.11);

/// Calls `f` on the slots `mask` selects, in order, with their position among the selected.
pub(crate) fn each_selected(
    slots: &mut dyn Slots,
    mask: u64,
    mut f: impl FnMut(usize, &mut dyn ErasedSlot),
) {
    let (mut index, mut selected) = (0u32, 0usize);
    slots.each(&mut |slot| {
        if index < 64 && mask & (1 << index) != 0 {
            f(selected, slot);
            selected += 1;
        }
        index += 1;
    });
}

/// Moves a parked value out of its slot.
///
/// An empty slot means the lowering missed a put-back: a bug in `mrtr`, reported as an error
/// instead of a panic.
pub fn out<T>(slot: &mut Option<T>, name: &'static str) -> Result<T, MrtrError> {
    slot.take().ok_or_else(|| empty_slot(name))
}

/// The error of a parked value missing from its slot `name` (a lowering bug).
pub(crate) fn empty_slot(name: &str) -> MrtrError {
    MrtrError::Internal(format!("mrtr lowering bug: slot `{name}` is empty"))
}

/// Ties a local's type to a hoisted witness, so that two arms declaring the same local agree
/// on it (see the lowering of `x = ask!(..)`).
pub fn type_witness<T>(_value: &T) -> std::marker::PhantomData<T> {
    std::marker::PhantomData
}

/// A program counter with no arm: a bug in the lowering, reported instead of a panic.
pub fn no_arm() -> MrtrError {
    MrtrError::Internal("mrtr lowering bug: no arm for this program counter".into())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Restores `value` from its saved bytes through a fresh slot.
    fn round_trip<T: Carry + Clone>(value: &T) -> T {
        let mut saved = slot::<T>();
        saved.value = Some(value.clone());
        let mut buffer = Vec::new();
        assert_eq!(saved.save(&mut buffer), Ok(true));
        let mut restored = slot::<T>();
        let mut input = buffer.as_slice();
        restored.restore(&mut input).expect("restores");
        assert!(input.is_empty());
        restored.value.expect("a value")
    }

    #[test]
    fn long_texts_and_collections_of_them_come_back_whole() {
        let long = "é".repeat(12_288);
        assert_eq!(round_trip(&long), long);
        let short = vec!["a".to_owned(), "bc".to_owned(), String::new()];
        assert_eq!(round_trip(&short), short);
        let keyed: std::collections::BTreeMap<String, (u8, String)> =
            [("x".repeat(4097), (1, "y".into()))].into();
        assert_eq!(round_trip(&keyed), keyed);
    }
}
