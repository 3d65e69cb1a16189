//! Seeds and the random numbers drawn from them: the same request gives the same seed on every
//! run and machine (FNV-1a over the method, path and query), and the same seed the same numbers
//! (SplitMix64).

/// The seed of a request: FNV-1a (64-bit) over its method, path and query.
pub(crate) fn of_request(method: &str, path: &str, query: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in [method.to_ascii_uppercase().as_str(), path, query] {
        for byte in part.bytes().chain([0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// A deterministic generator of numbers (SplitMix64).
pub(crate) struct Rng(u64);

impl Rng {
    /// The generator for `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next number.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }
}
