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
    /// The ticket was minted before this memory of redemptions began (a restarted process,
    /// a Redis that lost its data): it cannot tell whether the ticket was spent, so refuse.
    BeforeMemory,
    /// The store could not be reached or did not answer in time; refuse rather than
    /// guess (fail closed).
    Unavailable,
}

/// What a store knows about a ticket id, without recording anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The store holds no redemption of this id (never redeemed, or forgotten after expiry).
    NotRedeemed,
    /// The id was redeemed: the ticket is spent.
    Redeemed,
    /// The store could not answer (fail closed: treat it as a refusal).
    Unavailable,
}

/// A memory of redeemed ticket ids. Replicas that must refuse each other's repeats share
/// one (an `Arc` here; Redis behind the native server). Methods take `&self`: a store is
/// shared by the requests a server handles at once, and records atomically.
pub trait RedemptionStore {
    /// Records `ticket_id` (minted at `issued_s`, valid until `expires_s`) unless it was
    /// recorded before; exactly one of any number of racing calls for the same id gets
    /// `First`. A ticket minted before the memory began gets `BeforeMemory`: a memory that
    /// was lost (a restart, a store that forgot) would otherwise let a spent ticket redeem again.
    fn redeem(&self, ticket_id: &str, issued_s: u64, expires_s: u64, now_s: u64) -> Redemption;
    /// Whether `ticket_id` was redeemed, recording nothing: the ask-again path uses it so a
    /// spent ticket cannot be traded for a fresh question.
    fn lookup(&self, ticket_id: &str, now_s: u64) -> Lookup;
    /// Settles this holder's `First` for `ticket_id`. The server claims a flow before its
    /// handler runs (so racing copies of a retry cannot each run it) and settles the claim
    /// once the handler is done: `done` (the work was done, the flow stays spent) or not (the
    /// handler asked again or failed: the claim is given back, so the flow's next ticket can
    /// be redeemed). Every `First` the server gets is settled once.
    fn settle(&self, ticket_id: &str, done: bool);
    /// How many redemptions this holder knows of (a remote store counts only its own).
    fn len(&self) -> usize;
    /// True when [`RedemptionStore::len`] is 0.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// In-memory store: bounded, and ids are forgotten once their ticket has expired (an
/// expired ticket is refused by the expiry check anyway).
#[derive(Debug)]
pub struct MemoryStore {
    redeemed: Mutex<Redeemed>,
    capacity: usize,
    /// When this memory began (seconds): tickets minted earlier are refused.
    began_s: u64,
}

/// The ids a [`MemoryStore`] holds, each with its ticket's expiry, and when a full store
/// may next have an id to drop: until then a redemption into a full store is refused at
/// once, without looking through every id (which a full store of a million would do on
/// every request).
#[derive(Debug, Default)]
struct Redeemed {
    ids: BTreeMap<Tid, u64>,
    /// The earliest expiry among `ids` when they were last swept (0: not swept since full).
    next_sweep_s: u64,
}

/// A ticket id as the store keeps it: inline when it is short (the server's are 16
/// characters), so a full store of 100 000 costs a few megabytes, not one allocation each.
/// A given id is always kept the same way (by its length), so equality is the id's.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Tid {
    Short { len: u8, bytes: [u8; Tid::INLINE] },
    Long(Box<str>),
}

impl Tid {
    const INLINE: usize = 22;

    fn of(id: &str) -> Tid {
        if id.len() <= Tid::INLINE {
            let mut bytes = [0u8; Tid::INLINE];
            bytes[..id.len()].copy_from_slice(id.as_bytes());
            Tid::Short {
                len: id.len() as u8,
                bytes,
            }
        } else {
            Tid::Long(id.into())
        }
    }
}

impl MemoryStore {
    /// The capacity of [`MemoryStore::default`]: unexpired ids held at most. An id is kept
    /// for its ticket's lifetime (120 s by default): this holds that lifetime's worth at
    /// about 8 000 redemptions a second (`make bench` measures a single-use server near
    /// that rate and what one remembered id costs).
    pub const DEFAULT_CAPACITY: usize = 1_000_000;

    /// An empty store that holds at most `capacity` unexpired ids (at least 1); when full,
    /// expired ids are dropped, and if none has expired a redemption is refused as
    /// [`Redemption::Full`].
    pub fn new(capacity: usize) -> MemoryStore {
        MemoryStore {
            redeemed: Mutex::new(Redeemed::default()),
            capacity: capacity.max(1),
            began_s: 0,
        }
    }

    /// This store, remembering from second `now_s` on: tickets minted in or before that
    /// second are refused as [`Redemption::BeforeMemory`]. A process that keeps its memory in
    /// itself starts it so (and mints nothing until the next second): a restart with the same
    /// key forgets every redemption, and must not accept them again.
    pub fn beginning_at(self, now_s: u64) -> MemoryStore {
        MemoryStore {
            began_s: now_s,
            ..self
        }
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new(MemoryStore::DEFAULT_CAPACITY)
    }
}

impl RedemptionStore for MemoryStore {
    fn redeem(&self, ticket_id: &str, issued_s: u64, expires_s: u64, now_s: u64) -> Redemption {
        // In or before the second the memory began: whole seconds are all a ticket says, so
        // the beginning's own second is ambiguous, and refused (see `beginning_at`).
        if self.began_s > 0 && issued_s <= self.began_s {
            return Redemption::BeforeMemory;
        }
        // A poisoned lock means another thread panicked mid-update: refuse.
        let Ok(mut redeemed) = self.redeemed.lock() else {
            return Redemption::Unavailable;
        };
        let tid = Tid::of(ticket_id);
        if redeemed.ids.contains_key(&tid) {
            return Redemption::Repeat;
        }
        if redeemed.ids.len() >= self.capacity {
            // Nothing has expired since the last sweep: still full, no need to look.
            if now_s < redeemed.next_sweep_s {
                return Redemption::Full;
            }
            redeemed.ids.retain(|_, exp| *exp > now_s);
            if redeemed.ids.len() >= self.capacity {
                redeemed.next_sweep_s = redeemed.ids.values().copied().min().unwrap_or(0);
                return Redemption::Full;
            }
        }
        redeemed.ids.insert(tid, expires_s);
        Redemption::First
    }

    fn lookup(&self, ticket_id: &str, _now_s: u64) -> Lookup {
        match self.redeemed.lock() {
            Ok(r) if r.ids.contains_key(&Tid::of(ticket_id)) => Lookup::Redeemed,
            Ok(_) => Lookup::NotRedeemed,
            Err(_) => Lookup::Unavailable,
        }
    }

    fn settle(&self, ticket_id: &str, done: bool) {
        if !done {
            if let Ok(mut r) = self.redeemed.lock() {
                r.ids.remove(&Tid::of(ticket_id));
            }
        }
    }

    fn len(&self) -> usize {
        self.redeemed.lock().map(|r| r.ids.len()).unwrap_or(0)
    }
}

/// A store shared between replicas.
pub type SharedStore = Arc<MemoryStore>;

impl<S: RedemptionStore + ?Sized> RedemptionStore for Arc<S> {
    fn redeem(&self, ticket_id: &str, issued_s: u64, expires_s: u64, now_s: u64) -> Redemption {
        (**self).redeem(ticket_id, issued_s, expires_s, now_s)
    }

    fn lookup(&self, ticket_id: &str, now_s: u64) -> Lookup {
        (**self).lookup(ticket_id, now_s)
    }

    fn settle(&self, ticket_id: &str, done: bool) {
        (**self).settle(ticket_id, done)
    }

    fn len(&self) -> usize {
        (**self).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticket_minted_before_the_memory_began_is_refused() {
        let s = MemoryStore::default().beginning_at(1_000);
        assert_eq!(s.redeem("old", 999, 1_100, 1_001), Redemption::BeforeMemory);
        // Its own second is ambiguous (a ticket says whole seconds): refused too.
        assert_eq!(
            s.redeem("then", 1_000, 1_100, 1_001),
            Redemption::BeforeMemory
        );
        assert_eq!(s.redeem("new", 1_001, 1_120, 1_001), Redemption::First);
        assert_eq!(s.len(), 1, "nothing recorded for the refused one");
    }

    #[test]
    fn second_redemption_is_a_repeat() {
        let s = MemoryStore::default();
        assert_eq!(s.redeem("a", 0, 120, 10), Redemption::First);
        assert_eq!(s.redeem("a", 0, 120, 11), Redemption::Repeat);
        assert_eq!(s.redeem("b", 0, 120, 11), Redemption::First);
        assert_eq!(s.len(), 2);
        assert_eq!(s.lookup("a", 12), Lookup::Redeemed);
        assert_eq!(s.lookup("c", 12), Lookup::NotRedeemed);
        assert_eq!(s.len(), 2, "a lookup records nothing");
    }

    #[test]
    fn short_and_long_ids_are_told_apart() {
        let s = MemoryStore::default();
        let long = "x".repeat(23);
        let short = "x".repeat(22);
        assert_eq!(s.redeem(&long, 0, 120, 0), Redemption::First);
        assert_eq!(s.lookup(&short, 0), Lookup::NotRedeemed);
        assert_eq!(s.redeem(&short, 0, 120, 0), Redemption::First);
        assert_eq!(s.redeem(&long, 0, 120, 1), Redemption::Repeat);
        assert_eq!(s.redeem(&short, 0, 120, 1), Redemption::Repeat);
        assert_eq!(s.lookup("", 1), Lookup::NotRedeemed);
        assert_eq!(s.redeem("", 0, 120, 1), Redemption::First);
        assert_eq!(
            s.lookup("\0", 1),
            Lookup::NotRedeemed,
            "the padding is not part of an id"
        );
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn bounded_and_evicts_by_expiry() {
        let s = MemoryStore::new(2);
        assert_eq!(s.redeem("a", 0, 100, 0), Redemption::First);
        assert_eq!(s.redeem("b", 0, 200, 0), Redemption::First);
        assert_eq!(s.redeem("c", 0, 300, 50), Redemption::Full);
        assert_eq!(s.redeem("c", 0, 300, 100), Redemption::First); // "a" expired at 100
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn a_full_store_waits_for_its_earliest_expiry_and_no_longer() {
        let s = MemoryStore::new(3);
        for (id, exp) in [("a", 150), ("b", 100), ("c", 200)] {
            assert_eq!(s.redeem(id, 0, exp, 0), Redemption::First);
        }
        // Full, and nothing expires before 100: refused, each time, until then.
        for now in [10, 50, 99] {
            assert_eq!(s.redeem("d", 0, 300, now), Redemption::Full, "at {now}");
        }
        // A claim given back makes room at once, whatever the sweep said.
        s.settle("a", false);
        assert_eq!(s.redeem("d", 0, 300, 99), Redemption::First);
        assert_eq!(s.redeem("e", 0, 300, 99), Redemption::Full);
        // At 100 "b" has expired: room again.
        assert_eq!(s.redeem("e", 0, 300, 100), Redemption::First);
        assert_eq!(s.lookup("b", 100), Lookup::NotRedeemed);
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn shared_between_holders() {
        let shared: SharedStore = Arc::new(MemoryStore::default());
        let (a, b) = (shared.clone(), shared.clone());
        assert_eq!(a.redeem("t", 0, 120, 0), Redemption::First);
        assert_eq!(b.redeem("t", 0, 120, 1), Redemption::Repeat);
    }
}

#[cfg(test)]
mod race {
    use super::*;

    #[test]
    fn exactly_one_of_many_racing_redemptions_wins() {
        let store: SharedStore = Arc::new(MemoryStore::default());
        for trial in 0..20 {
            let id = format!("t{trial}");
            let wins: usize = std::thread::scope(|s| {
                let handles: Vec<_> = (0..8)
                    .map(|_| s.spawn(|| store.redeem(&id, 0, 100, 0) == Redemption::First))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| usize::from(h.join().unwrap_or(false)))
                    .sum()
            });
            assert_eq!(wins, 1, "trial {trial}");
        }
    }
}
