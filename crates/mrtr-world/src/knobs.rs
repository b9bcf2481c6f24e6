//! The world's settings. Every widget turns these, and a deep link carries them.

use mrtr_core::checks::CheckPolicy;
use mrtr_core::ticket::Seal;

/// The simulation's epoch (2027-01-15): tickets carry plausible absolute times. Every world's
/// clock counts from it.
pub const EPOCH_S: u64 = 1_800_000_000;

/// Where single use remembers redeemed tickets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StoreMode {
    /// One store both replicas consult, on one machine with a standby copy that it updates
    /// after answering (as one Redis with an asynchronous replica): a repeat is refused
    /// wherever it lands, until that machine dies before its copy caught up.
    #[default]
    Shared,
    /// Each replica remembers only its own redemptions.
    PerReplica,
    /// One store both replicas consult, on three machines that acknowledge a redemption
    /// once two of them hold it (a consensus store, as etcd): one machine may die.
    Quorum,
}

impl StoreMode {
    /// Every place the memory can live, in the order the page offers them.
    pub const ALL: [StoreMode; 3] = [StoreMode::PerReplica, StoreMode::Shared, StoreMode::Quorum];

    /// A stable name for links (`store=` in the fragment).
    pub fn id(self) -> &'static str {
        match self {
            StoreMode::Shared => "shared",
            StoreMode::PerReplica => "replica",
            StoreMode::Quorum => "quorum",
        }
    }

    /// The mode [`StoreMode::id`] names `s`.
    pub fn from_id(s: &str) -> Option<StoreMode> {
        StoreMode::ALL.into_iter().find(|m| m.id() == s)
    }
}

/// Every setting of one world: its tickets, its replicas' checks and its randomness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Knobs {
    /// Ticket lifetime in seconds.
    pub ttl_s: u64,
    /// How the replicas protect tickets.
    pub seal: Seal,
    /// The replicas refuse a ticket's second redemption.
    pub single_use: bool,
    /// Where single use remembers redemptions.
    pub store: StoreMode,
    /// Both replicas answer a retry without its answer the naive way: a brand-new ticket,
    /// the redemption store never asked (see `ServerConfig::naive_ask_again`).
    pub naive_ask_again: bool,
    /// Replica B holds a different key from A (and so refuses A's tickets).
    pub b_key_differs: bool,
    /// The checks replica A runs.
    pub policy_a: CheckPolicy,
    /// The checks replica B runs.
    pub policy_b: CheckPolicy,
    /// Seed for ticket ids and nonces.
    pub seed: u64,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            ttl_s: 120,
            seal: Seal::Signed,
            single_use: false,
            store: StoreMode::Shared,
            naive_ask_again: false,
            b_key_differs: false,
            policy_a: CheckPolicy::default(),
            policy_b: CheckPolicy::default(),
            seed: 2026,
        }
    }
}

impl Knobs {
    /// The policy a replica runs, with single use folded in.
    pub fn policy(&self, replica: crate::actor::Replica) -> CheckPolicy {
        let mut p = match replica {
            crate::actor::Replica::A => self.policy_a,
            crate::actor::Replica::B => self.policy_b,
        };
        p.single_use = self.single_use;
        p
    }
}
