//! Where the world's shared memory of redemptions lives, as machines that can die: one
//! machine with a standby copy it updates after answering (as one Redis with an asynchronous
//! replica does), or three machines of which a majority must hold a redemption before it is
//! acknowledged (as an etcd cluster does). The lesson's rule: losing the one machine before
//! it copied a redemption loses that redemption; losing one of three loses nothing.

use std::sync::{Arc, Mutex};

use mrtr_core::redemption::{Lookup, MemoryStore, Redemption, RedemptionStore};

/// How many machines a consensus memory has, and how many must hold a write.
pub const MEMBERS: usize = 3;
const MAJORITY: usize = MEMBERS / 2 + 1;

/// A redemption as a machine applies it.
#[derive(Clone, Debug)]
enum Write {
    Redeem {
        id: String,
        issued_s: u64,
        expires_s: u64,
        now_s: u64,
    },
    GiveBack {
        id: String,
    },
}

impl Write {
    fn apply(&self, m: &MemoryStore) {
        match self {
            Write::Redeem {
                id,
                issued_s,
                expires_s,
                now_s,
            } => {
                m.redeem(id, *issued_s, *expires_s, *now_s);
            }
            Write::GiveBack { id } => m.settle(id, false),
        }
    }
}

#[derive(Debug)]
enum Machines {
    /// One machine answers; its standby copy gets each write later, when the clock moves.
    WithCopy {
        primary: MemoryStore,
        copy: MemoryStore,
        /// Acknowledged, not yet on the copy.
        not_copied: Vec<Write>,
    },
    /// Three machines; a write is acknowledged once a majority holds it. `None`: died.
    Quorum { members: Vec<Option<MemoryStore>> },
}

/// What a machine's death did to the memory, as the world tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loss {
    /// The one machine died; its copy took over without this many acknowledged redemptions.
    CopyTookOver {
        /// Redemptions the copy never got.
        lost: usize,
    },
    /// One of the three machines died; the ones left still make a majority and hold every
    /// acknowledged redemption.
    MemberDied {
        /// Machines still running.
        left: usize,
    },
}

/// A memory of redemptions both replicas share, kept on machines the world can kill.
#[derive(Debug, Clone)]
pub struct SharedMemory(Arc<Mutex<Machines>>);

impl SharedMemory {
    /// One machine with a standby copy updated after each answer.
    pub fn with_copy() -> SharedMemory {
        SharedMemory(Arc::new(Mutex::new(Machines::WithCopy {
            primary: MemoryStore::default(),
            copy: MemoryStore::default(),
            not_copied: Vec::new(),
        })))
    }

    /// Three machines, a majority for each write.
    pub fn quorum() -> SharedMemory {
        SharedMemory(Arc::new(Mutex::new(Machines::Quorum {
            members: (0..MEMBERS).map(|_| Some(MemoryStore::default())).collect(),
        })))
    }

    /// Time passed: the standby copy catches up with what was acknowledged.
    pub fn catch_up(&self) {
        if let Ok(mut m) = self.0.lock() {
            if let Machines::WithCopy {
                copy, not_copied, ..
            } = &mut *m
            {
                for w in not_copied.drain(..) {
                    w.apply(copy);
                }
            }
        }
    }

    /// The machine that answers dies: the standby copy takes over, or the members left go on.
    pub fn machine_dies(&self) -> Option<Loss> {
        let mut m = self.0.lock().ok()?;
        match &mut *m {
            Machines::WithCopy {
                primary,
                copy,
                not_copied,
            } => {
                let lost = not_copied
                    .iter()
                    .filter(|w| matches!(w, Write::Redeem { .. }))
                    .count();
                not_copied.clear();
                *primary = std::mem::take(copy);
                Some(Loss::CopyTookOver { lost })
            }
            Machines::Quorum { members } => {
                let first_alive = members.iter().position(Option::is_some)?;
                members[first_alive] = None;
                Some(Loss::MemberDied {
                    left: members.iter().filter(|m| m.is_some()).count(),
                })
            }
        }
    }
}

impl RedemptionStore for SharedMemory {
    fn redeem(&self, ticket_id: &str, issued_s: u64, expires_s: u64, now_s: u64) -> Redemption {
        let Ok(mut m) = self.0.lock() else {
            return Redemption::Unavailable;
        };
        let write = Write::Redeem {
            id: ticket_id.to_owned(),
            issued_s,
            expires_s,
            now_s,
        };
        match &mut *m {
            Machines::WithCopy {
                primary,
                not_copied,
                ..
            } => {
                let r = primary.redeem(ticket_id, issued_s, expires_s, now_s);
                if r == Redemption::First {
                    not_copied.push(write);
                }
                r
            }
            Machines::Quorum { members } => {
                let alive: Vec<&MemoryStore> = members.iter().flatten().collect();
                if alive.len() < MAJORITY {
                    return Redemption::Unavailable;
                }
                // The members agree (each applies every write in the same order): the first
                // one's answer is theirs.
                let r = alive[0].redeem(ticket_id, issued_s, expires_s, now_s);
                if r == Redemption::First {
                    for m in &alive[1..] {
                        write.apply(m);
                    }
                }
                r
            }
        }
    }

    fn lookup(&self, ticket_id: &str, now_s: u64) -> Lookup {
        let Ok(m) = self.0.lock() else {
            return Lookup::Unavailable;
        };
        match &*m {
            Machines::WithCopy { primary, .. } => primary.lookup(ticket_id, now_s),
            Machines::Quorum { members } => {
                let alive: Vec<&MemoryStore> = members.iter().flatten().collect();
                if alive.len() < MAJORITY {
                    return Lookup::Unavailable;
                }
                alive[0].lookup(ticket_id, now_s)
            }
        }
    }

    fn settle(&self, ticket_id: &str, done: bool) {
        if done {
            return;
        }
        let Ok(mut m) = self.0.lock() else {
            return;
        };
        let write = Write::GiveBack {
            id: ticket_id.to_owned(),
        };
        match &mut *m {
            Machines::WithCopy {
                primary,
                not_copied,
                ..
            } => {
                write.apply(primary);
                not_copied.push(write);
            }
            Machines::Quorum { members } => {
                for m in members.iter().flatten() {
                    write.apply(m);
                }
            }
        }
    }

    fn len(&self) -> usize {
        match self.0.lock().as_deref() {
            Ok(Machines::WithCopy { primary, .. }) => primary.len(),
            Ok(Machines::Quorum { members }) => {
                members.iter().flatten().next().map_or(0, |m| m.len())
            }
            Err(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_machine_dying_before_its_copy_caught_up_forgets_the_redemption() {
        let m = SharedMemory::with_copy();
        assert_eq!(m.redeem("t", 1, 120, 8), Redemption::First);
        assert_eq!(m.machine_dies(), Some(Loss::CopyTookOver { lost: 1 }));
        assert_eq!(m.redeem("t", 1, 120, 40), Redemption::First, "spent twice");
    }

    #[test]
    fn a_copy_that_caught_up_keeps_the_redemption() {
        let m = SharedMemory::with_copy();
        assert_eq!(m.redeem("t", 1, 120, 8), Redemption::First);
        m.catch_up();
        assert_eq!(m.machine_dies(), Some(Loss::CopyTookOver { lost: 0 }));
        assert_eq!(m.redeem("t", 1, 120, 40), Redemption::Repeat);
    }

    #[test]
    fn one_of_three_dying_loses_nothing_and_two_dying_refuse() {
        let m = SharedMemory::quorum();
        assert_eq!(m.redeem("t", 1, 120, 8), Redemption::First);
        assert_eq!(m.machine_dies(), Some(Loss::MemberDied { left: 2 }));
        assert_eq!(m.redeem("t", 1, 120, 40), Redemption::Repeat);
        assert_eq!(m.lookup("t", 40), Lookup::Redeemed);
        assert_eq!(m.machine_dies(), Some(Loss::MemberDied { left: 1 }));
        assert_eq!(
            m.redeem("u", 1, 120, 41),
            Redemption::Unavailable,
            "no majority"
        );
        assert_eq!(m.lookup("t", 41), Lookup::Unavailable);
    }

    #[test]
    fn a_claim_given_back_is_given_back_on_every_machine() {
        let m = SharedMemory::quorum();
        assert_eq!(m.redeem("t", 1, 120, 8), Redemption::First);
        m.settle("t", false);
        m.machine_dies();
        assert_eq!(m.redeem("t", 1, 120, 9), Redemption::First);
        let c = SharedMemory::with_copy();
        assert_eq!(c.redeem("t", 1, 120, 8), Redemption::First);
        c.catch_up();
        c.settle("t", false);
        c.catch_up();
        c.machine_dies();
        assert_eq!(c.redeem("t", 1, 120, 9), Redemption::First);
    }
}
