//! A step's layout fingerprint, and what each thread remembers of the ones it took.

use std::any::TypeId;
use std::cell::RefCell;

use super::{Slots, each_selected};

/// Fingerprints a thread keeps; past this the memo starts over (a server has as many steps as
/// its handlers have, so it is never reached in practice).
const MEMO_ENTRIES: usize = 256;

/// The layout fingerprint of one step: its layout string and the type names rustc inferred for
/// the slots it carries. Taken on every seal and every open.
///
/// The same step always hashes the same strings: its layout is `'static` and its slots' type
/// names follow from their concrete type, so each thread remembers the hash by the layout's
/// address, the mask and the slots' `TypeId`, and hashes a step's strings once. The key is
/// exact (two different strings never share an address, two slot types never share an id), so
/// the memo cannot answer for another layout; a layout placed twice in the binary only costs
/// another entry.
pub(crate) fn step_fingerprint(layout: &'static str, slots: &mut dyn Slots, mask: u64) -> u64 {
    let key = Key {
        layout: (layout.as_ptr(), layout.len()),
        mask,
        slots: slots.type_key(),
    };
    MEMO.with_borrow_mut(|memo| {
        if let Some((_, fingerprint)) = memo.iter().find(|(known, _)| *known == key) {
            return *fingerprint;
        }
        let fingerprint = hashed(layout, slots, mask);
        if memo.len() == MEMO_ENTRIES {
            memo.clear();
        }
        memo.push((key, fingerprint));
        fingerprint
    })
}

/// What a step's fingerprint is taken from, by address and type.
#[derive(PartialEq)]
struct Key {
    layout: (*const u8, usize),
    mask: u64,
    slots: TypeId,
}

thread_local! {
    static MEMO: RefCell<Vec<(Key, u64)>> = const { RefCell::new(Vec::new()) };
}

fn hashed(layout: &str, slots: &mut dyn Slots, mask: u64) -> u64 {
    let mut hash = Fingerprint::new(layout);
    each_selected(slots, mask, |_, slot| hash.feed(slot.type_name()));
    hash.0
}

/// A 64-bit hash over the step's layout string and the type names of its carried slots.
///
/// It changes when keys, steps or carried types change, so a token minted by an older build is
/// rejected instead of being misread after a redeploy. Nothing here is secret or adversarial
/// (the token's AEAD already stops forgery): the hash only has to tell layouts apart, and it
/// reads eight bytes at a time because a byte-at-a-time FNV cost more than the rest of a seal's
/// bookkeeping.
struct Fingerprint(u64);

impl Fingerprint {
    fn new(layout: &str) -> Self {
        let mut hash = Fingerprint(0xcbf2_9ce4_8422_2325);
        hash.feed(layout);
        hash
    }

    /// Each text is preceded by its length, so ("ab", "c") and ("a", "bc") differ.
    fn feed(&mut self, text: &str) {
        self.mix(text.len() as u64);
        let mut words = text.as_bytes().chunks_exact(8);
        for word in &mut words {
            self.mix(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        }
        let mut last = [0u8; 8];
        last[..words.remainder().len()].copy_from_slice(words.remainder());
        self.mix(u64::from_le_bytes(last));
    }

    fn mix(&mut self, word: u64) {
        let hash = (self.0 ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = hash ^ (hash >> 29);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::carry::slot;

    fn fingerprint(layout: &str, type_names: &[&str]) -> u64 {
        let mut hash = Fingerprint::new(layout);
        type_names.iter().for_each(|name| hash.feed(name));
        hash.0
    }

    #[test]
    fn every_change_to_a_layout_or_a_carried_type_changes_the_fingerprint() {
        let base = fingerprint("mrtr-lowering/1|m::plan|AfterEnv|env|", &["u32", "String"]);
        assert_eq!(
            base,
            fingerprint("mrtr-lowering/1|m::plan|AfterEnv|env|", &["u32", "String"])
        );
        let others = [
            fingerprint("mrtr-lowering/1|m::plan|AfterEnv|envs|", &["u32", "String"]),
            fingerprint("mrtr-lowering/1|m::plan|AfterEnv|env|", &["u64", "String"]),
            fingerprint("mrtr-lowering/1|m::plan|AfterEnv|env|", &["String", "u32"]),
            fingerprint("mrtr-lowering/1|m::plan|AfterEnv|env|", &["u32"]),
            fingerprint("mrtr-lowering/1|m::plan|AfterEnv|env|", &["u32S", "tring"]),
            fingerprint("mrtr-lowering/1|m::plan|AfterEnv|env|u32", &["String"]),
            // Past the eighth byte of a word, and a zero byte where padding would be.
            fingerprint(
                "mrtr-lowering/1|m::plan|AfterEnv|env|",
                &["u32", "String\0"],
            ),
        ];
        for (i, other) in others.iter().enumerate() {
            assert_ne!(base, *other, "change {i}");
        }
    }

    #[test]
    fn a_remembered_fingerprint_is_the_one_the_hash_gives() {
        let layout = "mrtr-lowering/1|m::plan|AfterEnv|env,n|";
        let mut slots = (slot::<u32>(), slot::<String>(), slot::<Vec<u8>>());
        let direct = fingerprint(layout, &["u32", "alloc::vec::Vec<u8>"]);
        assert_eq!(direct, hashed(layout, &mut slots, 0b101));
        for _ in 0..2 {
            assert_eq!(step_fingerprint(layout, &mut slots, 0b101), direct);
        }
        // Another selection, another type at the same position, another layout: each its own.
        assert_eq!(
            step_fingerprint(layout, &mut slots, 0b011),
            fingerprint(layout, &["u32", "alloc::string::String"])
        );
        let mut other = (slot::<u64>(), slot::<String>(), slot::<Vec<u8>>());
        assert_eq!(
            step_fingerprint(layout, &mut other, 0b101),
            fingerprint(layout, &["u64", "alloc::vec::Vec<u8>"])
        );
        let longer = "mrtr-lowering/1|m::plan|AfterEnv|env,n|x";
        assert_eq!(
            step_fingerprint(longer, &mut slots, 0b101),
            fingerprint(longer, &["u32", "alloc::vec::Vec<u8>"])
        );
    }
}
