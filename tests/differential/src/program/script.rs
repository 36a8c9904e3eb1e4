//! Answer scripts. The answer to an ask is a pure function of (script, key, how many times that
//! key was asked before in this call), so the reference, the 2026-07-28 rounds (however they are
//! cut) and the legacy requests all answer identically.

/// What the client answers; `Accept` carries a choice the form turns into content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    Accept(u32),
    Decline,
    Cancel,
}

/// A script: its low two bits choose how often it accepts (always, mostly, often, rarely), so
/// every handler runs both its accept paths and its decline/cancel exits.
pub type Script = u64;

pub fn answer(script: Script, key: &str, nth: u32) -> Reply {
    let mut h = script ^ 0xcbf2_9ce4_8422_2325;
    for b in key.bytes().chain(nth.to_le_bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 32;
    let accept_percent = [100, 85, 60, 40][(script & 3) as usize];
    let roll = (h % 100) as u32;
    let value = ((h >> 8) % 1000) as u32;
    if roll < accept_percent {
        Reply::Accept(value)
    } else if roll.is_multiple_of(2) {
        Reply::Decline
    } else {
        Reply::Cancel
    }
}

/// The scripts a handler runs under: one that always accepts, then mixed ones.
pub fn scripts_for(program_seed: u64, count: usize) -> Vec<Script> {
    (0..count as u64)
        .map(|i| (program_seed.rotate_left(17) ^ i.wrapping_mul(0x9E37_79B9)) & !3 | (i % 4))
        .collect()
}
