//! # mrtr-world
//!
//! A deterministic world around the real MRTR core: the user and host, a client, a load
//! balancer, replicas A and B, a thief (alice) and a virtual clock, with seeded randomness.
//! A scenario drives it and yields a [`trace::Trace`]; the state at step N is read off the
//! trace, never remembered, so stepping back costs nothing.

pub mod actor;
pub mod checks;
pub mod diff;
pub mod inspect;
pub mod kinds;
pub mod knobs;
pub mod memory;
pub mod misuse;
pub mod raw;
pub mod rules;
pub mod scenario;
pub mod setup;
pub mod tasks;
pub mod tone;
pub mod trace;
pub mod world;

pub use actor::{Actor, Replica};
pub use knobs::{Knobs, StoreMode};
pub use scenario::{round_trip, Ending};
pub use tone::Tone;
pub use trace::{Event, EventKind, MessageKind, ServerPhase, StoryStep, Trace};
pub use world::World;
