//! The operating system's clock and random generator, behind the core's traits.

use mrtr_core::{Clock, Entropy};

/// Wall-clock time.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    }
}

/// The OS's cryptographic random generator.
#[derive(Clone, Copy, Debug, Default)]
pub struct OsEntropy;

impl Entropy for OsEntropy {
    fn fill(&mut self, buf: &mut [u8]) {
        // The OS generator does not fail on supported platforms; if it ever did, a ticket id
        // or nonce of zeros must not go out silently.
        if let Err(e) = getrandom::fill(buf) {
            panic!("the operating system's random generator failed: {e}");
        }
    }
}

/// 32 fresh random bytes, for a per-process key.
pub fn random_secret() -> Vec<u8> {
    let mut k = vec![0u8; 32];
    OsEntropy.fill(&mut k);
    k
}
