//! A redemption store on etcd: single use across a fleet that keeps working when one of
//! the store's machines dies.
//!
//! Why etcd beside Redis: one Redis is a single point of failure, and a Redis replica
//! promoted by Sentinel may lack a `SET NX` the old primary acknowledged (replication is
//! asynchronous), so a ticket can be redeemed twice after a failover. etcd commits every
//! write through Raft on a majority of its members before it answers: with three members,
//! any one may die and nothing acknowledged is lost, and with no majority it answers
//! nothing, so the replicas refuse (fail closed), never guess.
//!
//! The client is the `etcd-client` crate (etcdv3/etcd-client): the etcd v3 gRPC API on
//! tonic, maintained, used widely, balancing over every member named, with per-request
//! timeouts and `require_leader` (a member that has lost its leader answers at once
//! instead of waiting). Its calls are async; the store owns a small runtime of its own
//! and waits on a channel, so it can be called from any thread (the server's requests
//! run where they may block).
//!
//! A redemption is one transaction: if the flow's key was never created
//! (`create_revision == 0`) and the memory began before the ticket was minted, put the
//! key with this claim's random owner token, under a lease that outlives the ticket by
//! the clock-skew allowance (as the Redis store's retention does). Of any number of racing
//! replicas exactly one transaction succeeds.
//!
//! A claim whose reply is lost (sent, no answer in time) may have landed, or may still
//! land later: etcd may have it in flight. So the replica settles it before it answers,
//! trying for up to ten seconds (past an election, or a member that stalls): if the key
//! holds this claim's token, the claim landed and the work goes ahead; if the key is
//! missing, it writes a void mark there, and since a claim needs a key never created, a
//! late claim fails. A void key is free: the next claim takes it by comparing its revision.
//! A handler that asks again or fails gives its claim back the same way. So a lost reply
//! loses no honest retry and spends nothing twice, unless etcd stays unreachable for the
//! whole ten seconds: then that ticket is refused until its lease ends, and the log says so.
//!
//! When the memory began: `mrtr:memory-began` holds the second (zero-padded, so etcd's
//! byte-wise comparison is numeric) a replica first found it missing; a ticket minted in
//! or before it is refused (whether it was spent is forgotten). etcd keeps its data on
//! disk; the mark is lost only with all of it.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use etcd_client::{
    Client, Compare, CompareOp, ConnectOptions, GetOptions, PutOptions, Txn, TxnOp, TxnOpResponse,
};
use mrtr_core::redemption::{Lookup, Redemption, RedemptionStore};

use crate::redis_store::{owner_token, retention_ms};

/// How long one etcd call may take before the store gives up: a commit waits for a
/// majority's disk, and an election (etcd's default timeout is 1 s) answers nothing.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(1000);
const KEY_PREFIX: &str = "mrtr:redeemed:";
const BEGAN_KEY: &str = "mrtr:memory-began";
/// Tasks: `mrtr:task:<id>` holds the record as JSON, under a lease that ends after the task's.
const TASK_PREFIX: &str = "mrtr:task:";
/// What a released key holds: free for the next claim, closed to a claim still in flight.
const VOID: &str = "void";
/// How long settling a half-known claim keeps trying (see [`EtcdStore::settle_claim`])
/// before it gives up and says so: long enough to outlast an election and a member that
/// stalls for a few seconds. The request waits meanwhile.
const RESOLVE_FOR: Duration = Duration::from_secs(10);
const RESOLVE_PAUSE: Duration = Duration::from_millis(200);
/// Leases are shared: one lease serves every claim whose retention ends within this many
/// seconds before the lease does (so a claim is one transaction, not a grant and a put).
const LEASE_SLACK_S: u64 = 30;

/// A second as etcd compares it: bytes, so fixed width makes the order numeric.
fn padded(second: u64) -> String {
    format!("{second:020}")
}

/// How an `etcd://HOST:PORT[,HOST:PORT…]` URL names the cluster's members.
pub fn parse_endpoints(url: &str) -> Result<Vec<String>, String> {
    let rest = url.strip_prefix("etcd://").ok_or_else(|| {
        format!("--redemption takes redis://HOST:PORT[/DB] or etcd://HOST:PORT[,HOST:PORT…], not {url:?}")
    })?;
    let members: Vec<String> = rest
        .trim_end_matches('/')
        .split(',')
        .map(|m| m.trim().to_owned())
        .collect();
    for m in &members {
        let ok = m.rsplit_once(':').is_some_and(|(host, port)| {
            !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0)
        });
        if !ok || m.contains(['/', '@', '?', '#', ' ']) {
            return Err(format!(
                "--redemption {url:?}: each member is HOST:PORT (got {m:?})"
            ));
        }
    }
    Ok(members.iter().map(|m| format!("http://{m}")).collect())
}

/// Why a call has no answer.
enum Failure {
    /// The call was sent (or may have been): it may have run.
    Unknown(String),
}

/// A [`RedemptionStore`] whose redemptions live in etcd.
pub struct EtcdStore {
    runtime: tokio::runtime::Runtime,
    client: Client,
    members: Vec<String>,
    timeout: Duration,
    name: String,
    recorded: AtomicUsize,
    /// Each unsettled claim's owner token and lease (a give-back voids the key under it).
    claims: Mutex<HashMap<String, (String, i64)>>,
    /// The lease new claims share, and the second (by this replica's clock) it ends.
    lease: Mutex<Option<(i64, u64)>>,
    /// Tasks this process created.
    tasks_created: AtomicUsize,
    /// UNSAFE, for the cluster checker's self-test only: claims without the transaction's
    /// guard, so racing copies are each told they are first.
    unguarded: bool,
}

impl std::fmt::Debug for EtcdStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdStore")
            .field("members", &self.members)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl EtcdStore {
    /// A store on the members `url` names. A server starts while etcd is down (it refuses
    /// redemptions until a majority answers). When this replica is the first to mark when
    /// the memory began, it waits for the next whole second, so no ticket it mints shares
    /// that (refused) second.
    pub fn open(
        url: &str,
        timeout: Duration,
        name: &str,
        unguarded: bool,
    ) -> Result<EtcdStore, String> {
        let members = parse_endpoints(url)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("etcd-store")
            .enable_all()
            .build()
            .map_err(|e| format!("--redemption {url:?}: no runtime for the etcd client: {e}"))?;
        let options = ConnectOptions::new()
            .with_connect_timeout(timeout)
            .with_timeout(timeout)
            .with_require_leader(true)
            .with_keep_alive(Duration::from_secs(2), timeout);
        let eps = members.clone();
        // The channel connects lazily: this fails only for a malformed endpoint.
        let (tx, rx) = mpsc::channel();
        runtime.spawn(async move {
            let _ = tx.send(Client::connect(eps, Some(options)).await);
        });
        let client = rx
            .recv()
            .map_err(|e| format!("--redemption {url:?}: {e}"))?
            .map_err(|e| format!("--redemption {url:?}: {e}"))?;
        let store = EtcdStore {
            runtime,
            client,
            members,
            timeout,
            name: name.to_owned(),
            recorded: AtomicUsize::new(0),
            claims: Mutex::new(HashMap::new()),
            lease: Mutex::new(None),
            tasks_created: AtomicUsize::new(0),
            unguarded,
        };
        use mrtr_core::Clock;
        let now_ms = crate::os::SystemClock.now_ms();
        if let Ok(true) = store.mark_began(now_ms / 1000) {
            std::thread::sleep(Duration::from_millis(1000 - now_ms % 1000));
        }
        Ok(store)
    }

    /// Runs one call on the store's runtime and waits for it, at most twice the timeout
    /// (the client bounds each call by the timeout itself).
    fn call<T, F>(&self, make: impl FnOnce(Client) -> F) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: Future<Output = Result<T, etcd_client::Error>> + Send + 'static,
    {
        let (tx, rx) = mpsc::channel();
        let fut = make(self.client.clone());
        let timeout = self.timeout;
        self.runtime.spawn(async move {
            let answer = match tokio::time::timeout(timeout, fut).await {
                Ok(a) => a.map_err(|e| e.to_string()),
                Err(_) => Err(format!("no answer within {} ms", timeout.as_millis())),
            };
            let _ = tx.send(answer);
        });
        match rx.recv_timeout(self.timeout * 2) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(self.logged(e)),
            Err(_) => Err(self.logged("no answer in time".into())),
        }
    }

    fn logged(&self, e: String) -> Failure {
        eprintln!("[{}] redemption store unavailable: {e}", self.name);
        Failure::Unknown(e)
    }

    fn txn(&self, txn: Txn) -> Result<(bool, Vec<TxnOpResponse>), Failure> {
        self.call(|mut c| async move {
            let r = c.txn(txn).await?;
            Ok((r.succeeded(), r.op_responses()))
        })
    }

    /// Marks when the memory began, if no replica has: `Ok(true)` when this call marked it.
    fn mark_began(&self, now_s: u64) -> Result<bool, Failure> {
        let txn = Txn::new()
            .when([Compare::create_revision(BEGAN_KEY, CompareOp::Equal, 0)])
            .and_then([TxnOp::put(BEGAN_KEY, padded(now_s), None)]);
        self.txn(txn).map(|(marked, _)| marked)
    }

    /// A lease that lasts at least `retention_s` from `now_s`: the shared one if it ends in
    /// time and not much later, else a new one.
    fn lease_for(&self, retention_s: u64, now_s: u64) -> Result<i64, Failure> {
        let needed = now_s.saturating_add(retention_s);
        if let Ok(slot) = self.lease.lock() {
            if let Some((id, ends)) = *slot {
                if ends >= needed && ends <= needed.saturating_add(LEASE_SLACK_S) {
                    return Ok(id);
                }
            }
        }
        let ttl = retention_s
            .saturating_add(LEASE_SLACK_S)
            .min(i64::MAX as u64) as i64;
        let id = self.call(move |mut c| async move { Ok(c.lease_grant(ttl, None).await?.id()) })?;
        if let Ok(mut slot) = self.lease.lock() {
            *slot = Some((id, now_s.saturating_add(ttl as u64)));
        }
        Ok(id)
    }

    /// Forgets the shared lease (etcd no longer knows it, e.g. its data was replaced).
    fn drop_lease(&self) {
        if let Ok(mut slot) = self.lease.lock() {
            *slot = None;
        }
    }

    /// One claim: `Ok(First | Repeat | BeforeMemory)`, or a failure after which the claim
    /// may have landed.
    fn claim(
        &self,
        key: &str,
        owner: &str,
        lease: i64,
        issued_s: u64,
        now_s: u64,
    ) -> Result<Redemption, Failure> {
        let put = TxnOp::put(key, owner, Some(PutOptions::new().with_lease(lease)));
        if self.unguarded {
            self.txn(Txn::new().and_then([put]))?;
            return Ok(Redemption::First);
        }
        let minted_after_began = || Compare::value(BEGAN_KEY, CompareOp::Less, padded(issued_s));
        // Two rounds at most: the second after marking a missing beginning or finding a
        // void key (released) to take over.
        for _ in 0..3 {
            let txn = Txn::new()
                .when([
                    Compare::create_revision(key, CompareOp::Equal, 0),
                    minted_after_began(),
                ])
                .and_then([put.clone()])
                .or_else([TxnOp::get(key, None), TxnOp::get(BEGAN_KEY, None)]);
            let (first, answers) = self.txn(txn)?;
            if first {
                return Ok(Redemption::First);
            }
            let found = |i: usize| match answers.get(i) {
                Some(TxnOpResponse::Get(g)) => g
                    .kvs()
                    .first()
                    .map(|kv| (kv.value().to_vec(), kv.mod_revision())),
                _ => None,
            };
            let Some((began, _)) = found(1) else {
                // The memory's beginning is missing (etcd lost its data): mark it now.
                self.mark_began(now_s)?;
                continue;
            };
            if began.as_slice() >= padded(issued_s).as_bytes() {
                return Ok(Redemption::BeforeMemory);
            }
            match found(0) {
                Some((value, rev)) if value == VOID.as_bytes() => {
                    // Released: take it, if nobody else did since.
                    let take = Txn::new()
                        .when([
                            Compare::mod_revision(key, CompareOp::Equal, rev),
                            minted_after_began(),
                        ])
                        .and_then([put.clone()]);
                    if self.txn(take)?.0 {
                        return Ok(Redemption::First);
                    }
                }
                Some(_) => return Ok(Redemption::Repeat),
                // Gone between the two reads (its lease ended): try again.
                None => {}
            }
        }
        Ok(Redemption::Repeat)
    }

    /// Settles a claim of ours that must not stay half-known, trying until etcd answers
    /// or [`RESOLVE_FOR`] has passed. `Undo` (the handler did not finish): void the key if it
    /// holds `owner`. `Resolve` (the claim's reply was lost): if the claim landed, it is
    /// ours (`Some(true)`: do the work); if it did not, void the missing key so it cannot
    /// land later (`Some(false)`). Another claim's key is left alone (`Some(false)`).
    /// `None`: etcd did not answer in time (logged; the ticket is refused until its lease
    /// ends).
    fn settle_claim(&self, key: &str, owner: &str, lease: i64, how: Settle) -> Option<bool> {
        let void = || TxnOp::put(key, VOID, Some(PutOptions::new().with_lease(lease)));
        let deadline = std::time::Instant::now() + RESOLVE_FOR;
        while std::time::Instant::now() < deadline {
            let txn = Txn::new()
                .when([Compare::create_revision(key, CompareOp::Equal, 0)])
                .and_then([void()])
                .or_else([TxnOp::get(key, None)]);
            let Ok((voided, answers)) = self.txn(txn) else {
                std::thread::sleep(RESOLVE_PAUSE);
                continue;
            };
            if voided {
                return Some(false);
            }
            let kv = match answers.first() {
                Some(TxnOpResponse::Get(g)) => g.kvs().first().cloned(),
                _ => None,
            };
            match kv {
                Some(kv) if kv.value() == owner.as_bytes() => {
                    if how == Settle::Resolve {
                        return Some(true);
                    }
                    let take = Txn::new()
                        .when([Compare::mod_revision(
                            key,
                            CompareOp::Equal,
                            kv.mod_revision(),
                        )])
                        .and_then([void()]);
                    if let Ok((true, _)) = self.txn(take) {
                        return Some(false);
                    }
                }
                // Another claim's, or already void: nothing of ours to settle.
                Some(_) => return Some(false),
                // Gone between the two steps (its lease ended): look again.
                None => {}
            }
        }
        eprintln!(
            "[{}] redemption store: could not settle a claim ({}) within {} s; that ticket is refused until its lease ends",
            self.name,
            how.why(),
            RESOLVE_FOR.as_secs()
        );
        None
    }
}

/// What settling a claim of ours must do (see [`EtcdStore::settle_claim`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Settle {
    /// The claim's reply was lost: find out whether it landed, and stop it landing later.
    Resolve,
    /// The handler did not finish the work: give the flow back.
    Undo,
}

impl Settle {
    fn why(self) -> &'static str {
        match self {
            Settle::Resolve => "its reply was lost",
            Settle::Undo => "the handler did not finish the work",
        }
    }
}

impl RedemptionStore for EtcdStore {
    fn redeem(&self, ticket_id: &str, issued_s: u64, expires_s: u64, now_s: u64) -> Redemption {
        let key = format!("{KEY_PREFIX}{ticket_id}");
        let Some(owner) = owner_token(&self.name) else {
            return Redemption::Unavailable;
        };
        let retention_s = retention_ms(expires_s, now_s) / 1000;
        // Nothing was sent yet if there is no lease: refuse, nothing to undo.
        let Ok(lease) = self.lease_for(retention_s, now_s) else {
            return Redemption::Unavailable;
        };
        match self.claim(&key, &owner, lease, issued_s, now_s) {
            Ok(Redemption::First) => {
                self.recorded.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut c) = self.claims.lock() {
                    c.insert(ticket_id.to_owned(), (owner, lease));
                }
                Redemption::First
            }
            Ok(other) => other,
            Err(Failure::Unknown(e)) => {
                let lease = if e.contains("lease not found") {
                    // etcd no longer knows the shared lease: the claim did not land.
                    self.drop_lease();
                    match self.lease_for(retention_s, now_s) {
                        Ok(fresh) => fresh,
                        Err(_) => return Redemption::Unavailable,
                    }
                } else {
                    lease
                };
                // The claim may have landed, or may land later: find out, and void it if
                // it has not, so "nothing was done, send it again" stays true.
                match self.settle_claim(&key, &owner, lease, Settle::Resolve) {
                    Some(true) => {
                        self.recorded.fetch_add(1, Ordering::Relaxed);
                        if let Ok(mut c) = self.claims.lock() {
                            c.insert(ticket_id.to_owned(), (owner, lease));
                        }
                        Redemption::First
                    }
                    _ => Redemption::Unavailable,
                }
            }
        }
    }

    fn lookup(&self, ticket_id: &str, _now_s: u64) -> Lookup {
        let key = format!("{KEY_PREFIX}{ticket_id}");
        let got = self.call(move |mut c| async move {
            let r = c.get(key, None::<GetOptions>).await?;
            Ok(r.kvs().first().map(|kv| kv.value() == VOID.as_bytes()))
        });
        match got {
            Ok(None) | Ok(Some(true)) => Lookup::NotRedeemed,
            Ok(Some(false)) => Lookup::Redeemed,
            Err(_) => Lookup::Unavailable,
        }
    }

    fn settle(&self, ticket_id: &str, done: bool) {
        let claim = self
            .claims
            .lock()
            .ok()
            .and_then(|mut c| c.remove(ticket_id));
        if let (false, Some((owner, lease))) = (done, claim) {
            let key = format!("{KEY_PREFIX}{ticket_id}");
            self.settle_claim(&key, &owner, lease, Settle::Undo);
        }
    }

    fn len(&self) -> usize {
        self.recorded.load(Ordering::Relaxed)
    }
}

/// Tasks live beside the redemptions, in etcd: a task is created only where no key was ever
/// created, and each change is a transaction comparing the revision read, so a change is
/// committed by a majority or not at all. A change whose reply is lost is reported as the
/// store's failure: sending the same answer or cancel again is harmless (an answered key is
/// ignored, a cancel acknowledged).
impl mrtr_core::tasks::TaskStore for EtcdStore {
    fn create(
        &self,
        task: &mrtr_core::tasks::TaskRecord,
        now_ms: u64,
    ) -> Result<(), mrtr_core::tasks::TaskStoreError> {
        use mrtr_core::tasks::TaskStoreError;
        let unavailable = |_| TaskStoreError::Unavailable("etcd did not answer".into());
        let key = format!("{TASK_PREFIX}{}", task.id);
        let keep_s = task
            .expires_ms()
            .saturating_sub(now_ms)
            .div_ceil(1000)
            .max(1);
        let lease = self.lease_for(keep_s, now_ms / 1000).map_err(unavailable)?;
        let txn = Txn::new()
            .when([Compare::create_revision(key.as_str(), CompareOp::Equal, 0)])
            .and_then([TxnOp::put(
                key.as_str(),
                task.to_json(),
                Some(PutOptions::new().with_lease(lease)),
            )]);
        match self.txn(txn).map_err(unavailable)? {
            (true, _) => {
                self.tasks_created.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            (false, _) => Err(TaskStoreError::Taken),
        }
    }

    fn load(
        &self,
        id: &str,
        now_ms: u64,
    ) -> Result<Option<mrtr_core::tasks::store::Versioned>, mrtr_core::tasks::TaskStoreError> {
        use mrtr_core::tasks::{TaskRecord, TaskStoreError};
        let key = format!("{TASK_PREFIX}{id}");
        let kv = self
            .call(move |mut c| async move { Ok(c.get(key, None).await?.kvs().first().cloned()) })
            .map_err(|_| TaskStoreError::Unavailable("etcd did not answer".into()))?;
        let Some(kv) = kv else {
            return Ok(None);
        };
        let task = std::str::from_utf8(kv.value())
            .ok()
            .and_then(|json| TaskRecord::from_json(json).ok())
            .filter(|t| t.id == id)
            .ok_or_else(|| {
                TaskStoreError::Unavailable(format!("the value stored for task {id} is not a task"))
            })?;
        if task.is_expired(now_ms) {
            return Ok(None);
        }
        Ok(Some((task, kv.mod_revision().max(0) as u64)))
    }

    fn replace(
        &self,
        task: &mrtr_core::tasks::TaskRecord,
        version: u64,
    ) -> Result<bool, mrtr_core::tasks::TaskStoreError> {
        let key = format!("{TASK_PREFIX}{}", task.id);
        let txn = Txn::new()
            .when([Compare::mod_revision(
                key.as_str(),
                CompareOp::Equal,
                version.min(i64::MAX as u64) as i64,
            )])
            .and_then([TxnOp::put(
                key.as_str(),
                task.to_json(),
                // The key keeps the lease it was created under.
                Some(PutOptions::new().with_ignore_lease()),
            )]);
        self.txn(txn).map(|(replaced, _)| replaced).map_err(|_| {
            mrtr_core::tasks::TaskStoreError::Unavailable("etcd did not answer".into())
        })
    }

    fn len(&self) -> usize {
        self.tasks_created.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_host_port_pairs() {
        assert_eq!(
            parse_endpoints("etcd://127.0.0.1:2379,localhost:2479").unwrap(),
            ["http://127.0.0.1:2379", "http://localhost:2479"]
        );
        for bad in [
            "redis://x:1",
            "etcd://",
            "etcd://host",
            "etcd://host:0",
            "etcd://host:99999",
            "etcd://:2379",
            "etcd://user@host:2379",
            "etcd://a:1,,b:2",
        ] {
            assert!(parse_endpoints(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn seconds_compare_as_numbers_when_padded() {
        assert!(padded(99) < padded(100));
        assert!(padded(1_700_000_000) < padded(u64::MAX));
    }

    #[test]
    fn nobody_listening_means_unavailable_not_accepted() {
        // Port 1 on loopback: nothing listens there.
        let s = EtcdStore::open(
            "etcd://127.0.0.1:1",
            Duration::from_millis(200),
            "test",
            false,
        )
        .unwrap();
        assert_eq!(s.redeem("t", 0, 100, 0), Redemption::Unavailable);
        assert_eq!(s.lookup("t", 0), Lookup::Unavailable);
        assert_eq!(s.len(), 0);
    }
}
