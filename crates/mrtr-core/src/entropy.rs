//! Injected time and randomness: the engines never read a global clock or RNG, so the same
//! inputs give the same bytes (the page's deep links and every test rely on it).

/// A source of the current time.
pub trait Clock {
    /// Milliseconds since the Unix epoch (or since the simulation's epoch).
    fn now_ms(&self) -> u64;

    /// Whole seconds, [`Clock::now_ms`] rounded down: the unit of a ticket's `iat` and `exp`.
    fn now_s(&self) -> u64 {
        self.now_ms() / 1000
    }
}

/// A clock that says what it is told.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FixedClock(pub u64);

impl Clock for FixedClock {
    fn now_ms(&self) -> u64 {
        self.0
    }
}

/// A source of random bytes (ticket ids, AEAD nonces).
pub trait Entropy {
    /// Overwrites every byte of `buf` with random bytes. It cannot fail: an implementation
    /// whose source fails must panic rather than leave predictable bytes.
    fn fill(&mut self, buf: &mut [u8]);
}

/// SplitMix64: small, fast and reproducible. For simulations and tests; the native server
/// uses the operating system's generator instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeededEntropy {
    state: u64,
}

impl SeededEntropy {
    /// A generator whose whole output is fixed by `seed`.
    pub fn new(seed: u64) -> SeededEntropy {
        SeededEntropy { state: seed }
    }

    /// The next 64 bits of the sequence (one SplitMix64 step).
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Entropy for SeededEntropy {
    fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let bytes = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_entropy_reproduces() {
        let (mut a, mut b) = (SeededEntropy::new(7), SeededEntropy::new(7));
        let (mut x, mut y) = ([0u8; 13], [0u8; 13]);
        a.fill(&mut x);
        b.fill(&mut y);
        assert_eq!(x, y);
        assert_ne!(x, [0u8; 13]);
    }
}
