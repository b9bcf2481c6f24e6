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
    /// The store could not be reached or did not answer in time; refuse rather than
    /// guess (fail closed).
    Unavailable,
}

/// What a store knows about a ticket id, without recording anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    NotRedeemed,
    Redeemed,
    /// The store could not answer (fail closed: treat it as a refusal).
    Unavailable,
}

/// A memory of redeemed ticket ids. Replicas that must refuse each other's repeats share
/// one (behind `Arc<Mutex<_>>` here; a database or cache in production).
pub trait RedemptionStore {
    /// Records `ticket_id` (valid until `expires_s`) unless it was recorded before.
    fn redeem(&mut self, ticket_id: &str, expires_s: u64, now_s: u64) -> Redemption;
    /// Whether `ticket_id` was redeemed, recording nothing: the ask-again path uses it so a
    /// spent ticket cannot be traded for a fresh question.
    fn lookup(&mut self, ticket_id: &str, now_s: u64) -> Lookup;
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

    fn lookup(&mut self, ticket_id: &str, _now_s: u64) -> Lookup {
        if self.redeemed.contains_key(ticket_id) {
            Lookup::Redeemed
        } else {
            Lookup::NotRedeemed
        }
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
            Err(_) => Redemption::Unavailable,
        }
    }

    fn lookup(&mut self, ticket_id: &str, now_s: u64) -> Lookup {
        match self.lock() {
            Ok(mut s) => s.lookup(ticket_id, now_s),
            Err(_) => Lookup::Unavailable,
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
        assert_eq!(s.lookup("a", 12), Lookup::Redeemed);
        assert_eq!(s.lookup("c", 12), Lookup::NotRedeemed);
        assert_eq!(s.len(), 2, "a lookup records nothing");
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
