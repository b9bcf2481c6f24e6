//! # mrtr-core
//!
//! MCP 2026-07-28 multi round-trip requests (SEP-2322), as plain Rust with no I/O, no global
//! clock and no web dependencies. A server that needs the user ends the call with
//! `resultType: "input_required"`: the questions in `inputRequests`, its half-done work in a
//! signed `requestState` ticket. The client asks, then retries with a new id, the answers in
//! `inputResponses` and the ticket byte for byte; any replica holding the key can finish.
//!
//! Layers, bottom up:
//! - [`wire`] and [`error`]: JSON-RPC messages and the MCP shapes MRTR uses.
//! - [`canonical`], [`ticket`], [`checks`], [`redemption`]: the ticket and what a server checks.
//! - [`catalog`] and [`server`]: the server engine and what it offers.
//! - With the `demo` feature, the lesson's own tools (`fixtures`: deploy and the MRTR
//!   fixtures; `features`: the conformance suite's feature fixtures), `Server::lab` and the
//!   bearer-token convention of the lesson (`Principal::from_bearer`). Not the protocol.
//! - [`client`]: the client engine.
//! - [`legacy`]: one connection serving both eras, with the 2025-11-25 shim.
//! - [`tasks`]: the tasks extension: a call answered with a task, read, answered and
//!   cancelled by later requests that any replica sharing the task store can serve.

pub mod answered;
pub mod canonical;
pub mod catalog;
pub mod checks;
pub mod client;
pub mod entropy;
pub mod error;
#[cfg(feature = "demo")]
pub mod features;
#[cfg(feature = "demo")]
pub mod fixtures;
pub mod headers;
pub mod legacy;
#[cfg(feature = "demo")]
pub mod lesson;
pub mod redemption;
pub mod server;
#[cfg(feature = "demo")]
pub mod task_fixtures;
pub mod tasks;
pub mod ticket;
pub mod wire;

pub use checks::{Check, CheckOutcome, CheckPolicy, Status, Verdict};
pub use client::{AgreeableHost, Client, Host, Step};
pub use entropy::{Clock, Entropy, FixedClock, SeededEntropy};
pub use error::RpcError;
pub use server::{CallContext, Reply, Server, ServerConfig, TraceEvent};
pub use ticket::{Claims, Codec, Key, Keyring, MintError, Principal, Seal};
