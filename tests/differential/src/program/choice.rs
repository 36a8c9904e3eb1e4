//! The choice stream every generated program is read from.
//!
//! A program is a pure function of a `Vec<u32>`: proptest (or the hunt's shrinker) can edit the
//! stream and any edit still yields a valid program. An exhausted stream reads as zeros, and the
//! generator makes choice 0 the simplest option everywhere (stop, literal, first form), so
//! shortening and zeroing the stream moves towards small programs.

pub struct Choices<'a> {
    stream: &'a [u32],
    read: usize,
}

impl<'a> Choices<'a> {
    pub fn new(stream: &'a [u32]) -> Self {
        Choices { stream, read: 0 }
    }

    /// A choice among `n` options (`0..n`).
    pub fn pick(&mut self, n: u32) -> u32 {
        let raw = self.stream.get(self.read).copied().unwrap_or(0);
        self.read += 1;
        if n <= 1 { 0 } else { raw % n }
    }

    /// `true` with probability about `1/n`, `false` on an exhausted stream.
    pub fn one_in(&mut self, n: u32) -> bool {
        self.pick(n) == n - 1
    }

    /// How much of the stream the generator consumed (the rest cannot matter).
    pub fn consumed(&self) -> usize {
        self.read.min(self.stream.len())
    }
}

/// A reproducible stream from a seed (splitmix64), for the CI batch and the hunt.
pub fn seeded_stream(seed: u64, len: usize) -> Vec<u32> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as u32
        })
        .collect()
}

/// The seed of the `index`-th program of a run seeded with `seed`.
pub fn program_seed(seed: u64, index: usize) -> u64 {
    seed.wrapping_mul(0x100_0000_01B3) ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}
