//! Single use. Signing a ticket does not stop it being sent twice; where a second
//! redemption would hurt, the server must remember what it has redeemed.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// What happened when a ticket id was presented for redemption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Redemption {
    /// First time: recorded until the ticket expires.
    First,
    /// Seen before.
    Repeat,
    /// The store is full of unexpired ids; refuse rather than forget (fail closed).
    Full,
}

/// A memory of redeemed ticket ids. Replicas that must refuse each other's repeats share
/// one (behind `Arc<Mutex<_>>` here; a database or cache in production).
pub trait RedemptionStore {
    /// Records `ticket_id` (valid until `expires_s`) unless it was recorded before.
    fn redeem(&mut self, ticket_id: &str, expires_s: u64, now_s: u64) -> Redemption;
    /// How many ids are remembered.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// In-memory store: bounded, and ids are forgotten once their ticket has expired (an
/// expired ticket is refused by the expiry check anyway).
#[derive(Clone, Debug)]
pub struct MemoryStore {
    redeemed: BTreeMap<String, u64>,
    capacity: usize,
}

impl MemoryStore {
    pub const DEFAULT_CAPACITY: usize = 100_000;

    pub fn new(capacity: usize) -> MemoryStore {
        MemoryStore {
            redeemed: BTreeMap::new(),
            capacity: capacity.max(1),
        }
    }

    fn evict_expired(&mut self, now_s: u64) {
        self.redeemed.retain(|_, exp| *exp > now_s);
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new(MemoryStore::DEFAULT_CAPACITY)
    }
}

impl RedemptionStore for MemoryStore {
    fn redeem(&mut self, ticket_id: &str, expires_s: u64, now_s: u64) -> Redemption {
        if self.redeemed.contains_key(ticket_id) {
            return Redemption::Repeat;
        }
        if self.redeemed.len() >= self.capacity {
            self.evict_expired(now_s);
            if self.redeemed.len() >= self.capacity {
                return Redemption::Full;
            }
        }
        self.redeemed.insert(ticket_id.to_owned(), expires_s);
        Redemption::First
    }

    fn len(&self) -> usize {
        self.redeemed.len()
    }
}

/// A store shared between replicas.
pub type SharedStore = Arc<Mutex<MemoryStore>>;

impl<S: RedemptionStore> RedemptionStore for Arc<Mutex<S>> {
    fn redeem(&mut self, ticket_id: &str, expires_s: u64, now_s: u64) -> Redemption {
        match self.lock() {
            Ok(mut s) => s.redeem(ticket_id, expires_s, now_s),
            // A poisoned lock means another thread panicked mid-update: refuse.
            Err(_) => Redemption::Full,
        }
    }

    fn len(&self) -> usize {
        self.lock().map(|s| s.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_redemption_is_a_repeat() {
        let mut s = MemoryStore::default();
        assert_eq!(s.redeem("a", 120, 10), Redemption::First);
        assert_eq!(s.redeem("a", 120, 11), Redemption::Repeat);
        assert_eq!(s.redeem("b", 120, 11), Redemption::First);
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn bounded_and_evicts_by_expiry() {
        let mut s = MemoryStore::new(2);
        assert_eq!(s.redeem("a", 100, 0), Redemption::First);
        assert_eq!(s.redeem("b", 200, 0), Redemption::First);
        assert_eq!(s.redeem("c", 300, 50), Redemption::Full);
        assert_eq!(s.redeem("c", 300, 100), Redemption::First); // "a" expired at 100
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn shared_between_holders() {
        let shared: SharedStore = Arc::new(Mutex::new(MemoryStore::default()));
        let (mut a, mut b) = (shared.clone(), shared.clone());
        assert_eq!(a.redeem("t", 120, 0), Redemption::First);
        assert_eq!(b.redeem("t", 120, 1), Redemption::Repeat);
    }
}
