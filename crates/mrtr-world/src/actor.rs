//! Who takes part.

/// Everyone in the world. The thief is alice: a second principal holding someone else's ticket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Actor {
    /// The user and the host application that shows them questions.
    Host,
    Client,
    Balancer,
    ReplicaA,
    ReplicaB,
    Thief,
}

impl Actor {
    pub const ALL: [Actor; 6] = [
        Actor::Host,
        Actor::Client,
        Actor::Balancer,
        Actor::ReplicaA,
        Actor::ReplicaB,
        Actor::Thief,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Actor::Host => "host",
            Actor::Client => "client",
            Actor::Balancer => "balancer",
            Actor::ReplicaA => "replica-a",
            Actor::ReplicaB => "replica-b",
            Actor::Thief => "thief",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Actor::Host => "User: bob",
            Actor::Client => "Client",
            Actor::Balancer => "Load balancer",
            Actor::ReplicaA => "Replica A",
            Actor::ReplicaB => "Replica B",
            Actor::Thief => "alice (thief)",
        }
    }

    pub fn is_replica(self) -> bool {
        matches!(self, Actor::ReplicaA | Actor::ReplicaB)
    }
}

/// The two replicas behind the balancer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Replica {
    A,
    B,
}

impl Replica {
    pub fn actor(self) -> Actor {
        match self {
            Replica::A => Actor::ReplicaA,
            Replica::B => Actor::ReplicaB,
        }
    }

    pub fn index(self) -> usize {
        match self {
            Replica::A => 0,
            Replica::B => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Replica::A => "A",
            Replica::B => "B",
        }
    }
}
