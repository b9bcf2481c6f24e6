//! Who takes part.

/// Everyone in the world. The thief is alice: a second principal holding someone else's ticket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Actor {
    /// The user and the host application that shows them questions.
    Host,
    /// The MCP client, which talks to the servers for the host.
    Client,
    /// The load balancer in front of the replicas.
    Balancer,
    /// Server replica A.
    ReplicaA,
    /// Server replica B, holding the same key as A.
    ReplicaB,
    /// alice, who sends tickets that are not hers.
    Thief,
}

impl Actor {
    /// Every actor, in the diagram's order.
    pub const ALL: [Actor; 6] = [
        Actor::Host,
        Actor::Client,
        Actor::Balancer,
        Actor::ReplicaA,
        Actor::ReplicaB,
        Actor::Thief,
    ];

    /// A stable lowercase name, for markup and links.
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

    /// The actor's name as the page shows it.
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

    /// True for the two server replicas.
    pub fn is_replica(self) -> bool {
        matches!(self, Actor::ReplicaA | Actor::ReplicaB)
    }
}

/// The two replicas behind the balancer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Replica {
    /// Replica A.
    A,
    /// Replica B.
    B,
}

impl Replica {
    /// The replica as an actor of the diagram.
    pub fn actor(self) -> Actor {
        match self {
            Replica::A => Actor::ReplicaA,
            Replica::B => Actor::ReplicaB,
        }
    }

    /// 0 for A, 1 for B: its place in the world's list of replicas.
    pub fn index(self) -> usize {
        match self {
            Replica::A => 0,
            Replica::B => 1,
        }
    }

    /// `A` or `B`.
    pub fn name(self) -> &'static str {
        match self {
            Replica::A => "A",
            Replica::B => "B",
        }
    }
}
