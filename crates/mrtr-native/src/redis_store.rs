//! A redemption store on Redis, shared by every replica: single use across a fleet.
//!
//! A redemption is one atomic command, `SET mrtr:redeemed:<tid> <owner> NX PX <ms>`: the
//! first of any number of racing replicas gets `OK`, the rest get nothing. The retention is
//! relative and computed from the replica's own clock (the ticket's remaining life plus the
//! clock-skew allowance), so single use depends on the replicas' clocks only, never on
//! Redis's (and needs nothing newer than Redis 2.6.12). A lookup (every retry, before its
//! handler runs) is `EXISTS`. Every call is bounded by a timeout; when Redis is down or slow
//! the store answers `Unavailable` and the server refuses (fail closed), logs why, and
//! reconnects by itself on a later call.
//!
//! A claim whose reply is lost (the command ran, its answer missed the timeout) must not
//! spend the ticket: the client is told nothing was done and to send the same retry again.
//! So each claim carries a random owner token, and when its outcome is unknown the store
//! deletes the key on a fresh connection only if it still holds that token
//! (compare-and-delete, one Lua script), before the server answers. The server claims a flow
//! before its handler runs and settles the claim after; a claim whose handler asked again or
//! failed is given back the same way, with the token this store kept for it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use mrtr_core::checks::MAX_CLOCK_SKEW_S;
use mrtr_core::redemption::{Lookup, Redemption, RedemptionStore};

/// How long one Redis call (connect, send, receive) may take before the store gives up.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(250);
const KEY_PREFIX: &str = "mrtr:redeemed:";
/// The second this Redis's memory of redemptions began: kept beside the redemptions, so it
/// is lost exactly when they are (a restart without persistence, a flush), and then set
/// again to the second this Redis started (its `TIME` less its uptime).
const BEGAN_KEY: &str = "mrtr:memory-began";
/// Marks the memory's beginning (KEYS[1]) as this Redis's start, unless it is marked: each
/// new connection runs it, so the mark is made before the first claim can need it.
const MARK_BEGAN_SCRIPT: &str = "if redis.call('EXISTS', KEYS[1]) == 0 then \
  local t = redis.call('TIME') \
  local up = tonumber(string.match(redis.call('INFO', 'server'), 'uptime_in_seconds:(%d+)')) \
  redis.call('SET', KEYS[1], tostring(tonumber(t[1]) - up)) \
end \
return 0";
/// One claim, atomically: the memory's beginning (set if missing), a ticket minted in or
/// before that second refused (-1: whether it was spent is forgotten; the second itself is
/// ambiguous, whole seconds being all a ticket says), else SET NX PX: 1 claimed, 0 a repeat.
/// KEYS: the ticket's key, BEGAN_KEY; ARGV: owner, retention ms, the ticket's issue second.
const CLAIM_SCRIPT: &str = "local began = redis.call('GET', KEYS[2]) \
if not began then \
  local t = redis.call('TIME') \
  local up = tonumber(string.match(redis.call('INFO', 'server'), 'uptime_in_seconds:(%d+)')) \
  began = tostring(tonumber(t[1]) - up) \
  redis.call('SET', KEYS[2], began) \
end \
if tonumber(ARGV[3]) <= tonumber(began) then return -1 end \
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end \
return 0";
/// Deletes KEYS[1] only if it holds ARGV[1]: a claim's owner undoing its own claim, never
/// anyone else's.
const RELEASE_SCRIPT: &str =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
/// Tasks: `mrtr:task:<id>` holds `<version>:<record as JSON>`, and expires with the task.
const TASK_PREFIX: &str = "mrtr:task:";
/// Replaces a task (KEYS[1]) with ARGV[2], keeping its expiry, only if it still holds version
/// ARGV[1]: 1 replaced, 0 another change came first (or the task is gone).
const REPLACE_TASK_SCRIPT: &str = "local cur = redis.call('GET', KEYS[1]) \
if not cur then return 0 end \
if string.match(cur, '^(%d+):') ~= ARGV[1] then return 0 end \
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') \
return 1";
/// The log's reason for releasing a claim whose reply never came.
const LOST_REPLY: &str = "a claim's reply was lost";
/// How many fresh connections a release tries before it gives up (and says so in the log).
const RELEASE_TRIES: u32 = 3;

/// What one command got: an answer, no answer after the command surely did not run (no
/// connection), or no answer after it was sent (it may have run).
enum Outcome<T> {
    Answer(T),
    NeverSent,
    Unknown,
}

/// A failed send: whether the command went out on a connection (and so may have run).
enum Sent {
    No(redis::RedisError),
    Yes(redis::RedisError),
}

/// A claim's random owner token (16 bytes as hex): a store undoes only a claim that still
/// holds its own token. `None`, logged under `store_name`, when there is no randomness.
pub(crate) fn owner_token(store_name: &str) -> Option<String> {
    let mut token = [0u8; 16];
    if getrandom::fill(&mut token).is_err() {
        eprintln!("[{store_name}] redemption store: no randomness for an owner token");
        return None;
    }
    Some(hex::encode(token))
}

/// How long Redis keeps a redemption, from the replica's clock: the ticket's remaining life
/// plus the skew allowance (a replica whose clock runs behind still finds the id while it
/// would accept the ticket), at least one second.
pub fn retention_ms(expires_s: u64, now_s: u64) -> u64 {
    expires_s
        .saturating_sub(now_s)
        .saturating_add(MAX_CLOCK_SKEW_S)
        .max(1)
        .saturating_mul(1000)
}

/// Where the store finds the Redis to talk to.
enum Source {
    /// One Redis, named by its URL.
    Direct(redis::Client),
    /// Whichever Redis the Sentinels name as the primary of a group, asked again on every new
    /// connection, so a failover is followed.
    Sentinel {
        sentinels: Mutex<redis::sentinel::SentinelClient>,
        group: String,
    },
}

/// Reads `redis+sentinel://HOST:PORT[,HOST:PORT…]/GROUP`: the Sentinels, and the name of the
/// group whose primary holds the redemptions.
pub fn parse_sentinel_url(url: &str) -> Result<(Vec<String>, String), String> {
    let bad =
        || format!("--redemption takes redis+sentinel://HOST:PORT[,HOST:PORT…]/GROUP, not {url:?}");
    let rest = url.strip_prefix("redis+sentinel://").ok_or_else(bad)?;
    let (hosts, group) = rest.split_once('/').ok_or_else(bad)?;
    if group.is_empty()
        || !group
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        return Err(bad());
    }
    let sentinels: Vec<String> = hosts.split(',').map(|h| format!("redis://{h}")).collect();
    for h in hosts.split(',') {
        let ok = h.rsplit_once(':').is_some_and(|(host, port)| {
            !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0)
        });
        if !ok || h.contains(['@', '/', '?', '#', ' ']) {
            return Err(bad());
        }
    }
    Ok((sentinels, group.to_owned()))
}

/// A [`mrtr_core::redemption::RedemptionStore`] whose redemptions live in Redis, so every
/// replica naming the same Redis refuses a ticket another already redeemed.
pub struct RedisStore {
    client: Source,
    /// One connection, opened on first use and again after a failure.
    conn: Mutex<Option<redis::Connection>>,
    timeout: Duration,
    /// Where the log lines come from (the replica's name).
    name: String,
    /// Redemptions this process recorded.
    recorded: AtomicUsize,
    /// The owner token of each claim not yet settled: a claim whose handler does not finish
    /// is deleted only if Redis still holds this token (never another replica's claim).
    claims: Mutex<HashMap<String, String>>,
    /// Tasks this process created.
    tasks_created: AtomicUsize,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field(
                "server",
                &match &self.client {
                    Source::Direct(c) => c.get_connection_info().addr().to_string(),
                    Source::Sentinel { group, .. } => {
                        format!("the primary of Sentinel group {group}")
                    }
                },
            )
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store for `url` (`redis://HOST:PORT[/DB]`). It connects at once if it can, which
    /// marks when the memory began if no replica has yet (see [`BEGAN_KEY`]); a server starts
    /// even while Redis is down, and connects later.
    pub fn open(url: &str, timeout: Duration, name: &str) -> Result<RedisStore, String> {
        let client = if url.starts_with("redis+sentinel://") {
            let (sentinels, group) = parse_sentinel_url(url)?;
            let sentinels = redis::sentinel::SentinelClient::build(
                sentinels,
                group.clone(),
                None,
                redis::sentinel::SentinelServerType::Master,
            )
            .map_err(|e| format!("--redemption {url:?}: {e}"))?;
            Source::Sentinel {
                sentinels: Mutex::new(sentinels),
                group,
            }
        } else if url.starts_with("redis://") {
            Source::Direct(
                redis::Client::open(url).map_err(|e| format!("--redemption {url:?}: {e}"))?,
            )
        } else {
            return Err(format!(
                "--redemption takes redis://HOST:PORT[/DB], redis+sentinel://HOST:PORT[,…]/GROUP or etcd://HOST:PORT[,HOST:PORT…], not {url:?}"
            ));
        };
        let store = RedisStore {
            client,
            conn: Mutex::new(None),
            timeout,
            name: name.to_owned(),
            recorded: AtomicUsize::new(0),
            claims: Mutex::new(HashMap::new()),
            tasks_created: AtomicUsize::new(0),
        };
        if let (Ok(conn), Ok(mut slot)) = (store.connect(), store.conn.lock()) {
            *slot = Some(conn);
        }
        Ok(store)
    }

    /// Runs one command on the connection, connecting first if needed. Any failure drops
    /// the connection (the next call reconnects, so a late reply is never read as the answer
    /// to another command) and is logged.
    fn run<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Option<T> {
        match self.send(cmd) {
            Outcome::Answer(v) => Some(v),
            Outcome::NeverSent | Outcome::Unknown => None,
        }
    }

    fn send<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Outcome<T> {
        self.send_once_more_if_stale(cmd).0
    }

    /// Sends `cmd`; when a connection kept from an earlier call turns out dead (Redis
    /// restarted, or closed it for idleness), sends it once more on a fresh one instead of
    /// refusing the request, and says so (`true`): a dead connection never delivered the
    /// command to a live Redis, so the second send is the first that can run.
    fn send_once_more_if_stale<T: redis::FromRedisValue>(
        &self,
        cmd: &redis::Cmd,
    ) -> (Outcome<T>, bool) {
        let Ok(mut slot) = self.conn.lock() else {
            eprintln!("[{}] redemption store: lock poisoned", self.name);
            return (Outcome::NeverSent, false);
        };
        let kept = slot.is_some();
        let started = std::time::Instant::now();
        let first = self.send_on(&mut slot, cmd);
        // A dead connection fails at once; one that failed after waiting may have a command
        // running behind it: that is a lost reply, resolved by the caller, never sent again.
        let at_once = started.elapsed() < self.timeout / 2;
        match first {
            Err(Sent::Yes(e)) if kept && at_once && e.is_connection_dropped() => {
                eprintln!(
                    "[{}] redemption store: the kept connection was closed ({e}); sending again on a new one",
                    self.name
                );
                let again = match self.send_on(&mut slot, cmd) {
                    Ok(v) => Outcome::Answer(v),
                    Err(e) => self.failed(e),
                };
                (again, true)
            }
            Err(e) => (self.failed(e), false),
            Ok(v) => (Outcome::Answer(v), false),
        }
    }

    /// Whether `key` holds `owner` (false when Redis cannot say).
    fn holds(&self, key: &str, owner: &str) -> bool {
        let mut get = redis::cmd("GET");
        get.arg(key);
        self.run::<Option<String>>(&get).flatten().as_deref() == Some(owner)
    }

    /// One send on the connection in `slot`, connecting first if there is none; any failure
    /// drops the connection (the next call reconnects, so a late reply is never read as the
    /// answer to another command).
    fn send_on<T: redis::FromRedisValue>(
        &self,
        slot: &mut Option<redis::Connection>,
        cmd: &redis::Cmd,
    ) -> Result<T, Sent> {
        if slot.is_none() {
            *slot = Some(self.connect().map_err(Sent::No)?);
        }
        let Some(conn) = slot.as_mut() else {
            return Err(Sent::No(redis::RedisError::from(std::io::Error::other(
                "no connection",
            ))));
        };
        cmd.query::<T>(conn).map_err(|e| {
            *slot = None;
            Sent::Yes(e)
        })
    }

    /// What a failed send means, logged: no connection, or a refused one, means nothing
    /// reached Redis; a timeout or a broken connection after sending may have left it run.
    fn failed<T>(&self, e: Sent) -> Outcome<T> {
        match e {
            Sent::No(e) => {
                eprintln!("[{}] redemption store unavailable: {e}", self.name);
                Outcome::NeverSent
            }
            Sent::Yes(e) => {
                eprintln!("[{}] redemption store unavailable: {e}", self.name);
                if e.is_connection_refusal() {
                    Outcome::NeverSent
                } else {
                    Outcome::Unknown
                }
            }
        }
    }

    /// Undoes a claim (one whose reply was lost, or one its handler did not finish), on a
    /// fresh connection each try: deletes the key only if it still holds `owner`. True when
    /// Redis answered (the key is now not ours). `why` is the log's reason.
    fn release(&self, key: &str, owner: &str, why: &str) -> bool {
        let mut script = redis::cmd("EVAL");
        script.arg(RELEASE_SCRIPT).arg(1).arg(key).arg(owner);
        for _ in 0..RELEASE_TRIES {
            let answered = self.connect().and_then(|mut c| script.query::<i64>(&mut c));
            match answered {
                Ok(n) => {
                    if n != 1 || why == LOST_REPLY {
                        eprintln!(
                            "[{}] redemption store: {why}; {} it, so the same retry can go through",
                            self.name,
                            if n == 1 {
                                "released"
                            } else {
                                "it had not been recorded; nothing to release"
                            }
                        );
                    }
                    return true;
                }
                Err(e) => eprintln!(
                    "[{}] redemption store: releasing a claim ({why}): {e}",
                    self.name
                ),
            }
        }
        eprintln!(
            "[{}] redemption store: could not release a claim ({why}); that ticket is refused until its retention ends",
            self.name
        );
        false
    }

    /// A new connection, to a Redis that never evicts: one that evicts under memory
    /// pressure would forget redemptions silently, so it is refused as unavailable.
    fn connect(&self) -> redis::RedisResult<redis::Connection> {
        let client = match &self.client {
            Source::Direct(c) => c.clone(),
            // Asks the Sentinels which Redis is the group's primary now.
            Source::Sentinel { sentinels, .. } => sentinels
                .lock()
                .map_err(|_| redis::RedisError::from(std::io::Error::other("lock poisoned")))?
                .get_client()?,
        };
        let mut conn = client.get_connection_with_timeout(self.timeout)?;
        conn.set_read_timeout(Some(self.timeout))?;
        conn.set_write_timeout(Some(self.timeout))?;
        let policy: Vec<String> = redis::cmd("CONFIG")
            .arg("GET")
            .arg("maxmemory-policy")
            .query(&mut conn)?;
        match policy.get(1).map(String::as_str) {
            Some("noeviction") => {
                // The memory's beginning, if no one has marked it yet: this Redis's start.
                redis::cmd("EVAL").arg(MARK_BEGAN_SCRIPT).arg(1).arg(BEGAN_KEY).query::<()>(&mut conn)?;
                Ok(conn)
            }
            other => Err(redis::RedisError::from(std::io::Error::other(format!(
                "this Redis may evict redemptions under memory pressure (maxmemory-policy {}); start it with --maxmemory-policy noeviction",
                other.unwrap_or("unknown")
            )))),
        }
    }
}

impl RedemptionStore for RedisStore {
    fn redeem(&self, ticket_id: &str, issued_s: u64, expires_s: u64, now_s: u64) -> Redemption {
        let key = format!("{KEY_PREFIX}{ticket_id}");
        let Some(owner) = owner_token(&self.name) else {
            return Redemption::Unavailable;
        };
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(CLAIM_SCRIPT)
            .arg(2)
            .arg(&key)
            .arg(BEGAN_KEY)
            .arg(&owner)
            .arg(retention_ms(expires_s, now_s))
            .arg(issued_s);
        let (outcome, sent_again) = self.send_once_more_if_stale::<i64>(&cmd);
        // Sent again after a dead connection: if the first send did reach Redis after all, the
        // key holds this claim's own token, and the claim is ours.
        let outcome = match outcome {
            Outcome::Answer(0) if sent_again && self.holds(&key, &owner) => Outcome::Answer(1),
            o => o,
        };
        match outcome {
            Outcome::Answer(-1) => Redemption::BeforeMemory,
            Outcome::Answer(1) => {
                self.recorded.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut c) = self.claims.lock() {
                    c.insert(ticket_id.to_owned(), owner);
                }
                Redemption::First
            }
            Outcome::Answer(_) => Redemption::Repeat,
            Outcome::NeverSent => Redemption::Unavailable,
            Outcome::Unknown => {
                // The claim may have been recorded though nobody will do the work: undo it
                // if it is ours, so "nothing was done, send it again" stays true.
                self.release(&key, &owner, LOST_REPLY);
                Redemption::Unavailable
            }
        }
    }

    fn lookup(&self, ticket_id: &str, _now_s: u64) -> Lookup {
        // (A dead kept connection is replaced inside `run`: EXISTS can be sent twice.)
        let mut cmd = redis::cmd("EXISTS");
        cmd.arg(format!("{KEY_PREFIX}{ticket_id}"));
        match self.run::<u64>(&cmd) {
            Some(0) => Lookup::NotRedeemed,
            Some(_) => Lookup::Redeemed,
            None => Lookup::Unavailable,
        }
    }

    fn settle(&self, ticket_id: &str, done: bool) {
        let owner = self
            .claims
            .lock()
            .ok()
            .and_then(|mut c| c.remove(ticket_id));
        if let (false, Some(owner)) = (done, owner) {
            let key = format!("{KEY_PREFIX}{ticket_id}");
            // Asked again or failed: the flow is not spent; give the claim back (ours only).
            self.release(&key, &owner, "the handler did not finish the work");
        }
    }

    fn len(&self) -> usize {
        self.recorded.load(Ordering::Relaxed)
    }
}

/// Tasks live beside the redemptions, in the same Redis: every replica naming it serves
/// every task. A change is one script comparing the version read; a change whose reply is
/// lost is reported as the store's failure (-32603, "send again"): sending the same answer
/// or cancel again is harmless, since an answered key is ignored and a cancel acknowledged.
impl mrtr_core::tasks::TaskStore for RedisStore {
    fn create(
        &self,
        task: &mrtr_core::tasks::TaskRecord,
        now_ms: u64,
    ) -> Result<(), mrtr_core::tasks::TaskStoreError> {
        use mrtr_core::tasks::TaskStoreError;
        let mut set = redis::cmd("SET");
        set.arg(format!("{TASK_PREFIX}{}", task.id))
            .arg(format!("1:{}", task.to_json()))
            .arg("NX")
            .arg("PX")
            .arg(task.expires_ms().saturating_sub(now_ms).max(1));
        match self.send::<Option<String>>(&set) {
            Outcome::Answer(Some(_)) => {
                self.tasks_created.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Outcome::Answer(None) => Err(TaskStoreError::Taken),
            Outcome::NeverSent | Outcome::Unknown => {
                Err(TaskStoreError::Unavailable("Redis did not answer".into()))
            }
        }
    }

    fn load(
        &self,
        id: &str,
        now_ms: u64,
    ) -> Result<Option<mrtr_core::tasks::store::Versioned>, mrtr_core::tasks::TaskStoreError> {
        use mrtr_core::tasks::{TaskRecord, TaskStoreError};
        let mut get = redis::cmd("GET");
        get.arg(format!("{TASK_PREFIX}{id}"));
        let stored = match self.send::<Option<String>>(&get) {
            Outcome::Answer(v) => v,
            _ => return Err(TaskStoreError::Unavailable("Redis did not answer".into())),
        };
        let Some(stored) = stored else {
            return Ok(None);
        };
        // Whatever is stored is read as untrusted bytes: a value that is not a task is an
        // error, never a task.
        let parsed = stored.split_once(':').and_then(|(v, json)| {
            Some((TaskRecord::from_json(json).ok()?, v.parse::<u64>().ok()?))
        });
        match parsed {
            Some((task, _)) if task.is_expired(now_ms) => Ok(None),
            Some((task, version)) if task.id == id => Ok(Some((task, version))),
            _ => Err(TaskStoreError::Unavailable(format!(
                "the value stored for task {id} is not a task"
            ))),
        }
    }

    fn replace(
        &self,
        task: &mrtr_core::tasks::TaskRecord,
        version: u64,
    ) -> Result<bool, mrtr_core::tasks::TaskStoreError> {
        let mut script = redis::cmd("EVAL");
        script
            .arg(REPLACE_TASK_SCRIPT)
            .arg(1)
            .arg(format!("{TASK_PREFIX}{}", task.id))
            .arg(version.to_string())
            .arg(format!("{}:{}", version + 1, task.to_json()));
        match self.send::<i64>(&script) {
            Outcome::Answer(n) => Ok(n == 1),
            _ => Err(mrtr_core::tasks::TaskStoreError::Unavailable(
                "Redis did not answer".into(),
            )),
        }
    }

    fn len(&self) -> usize {
        self.tasks_created.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentinel_urls_name_sentinels_and_a_group() {
        assert_eq!(
            parse_sentinel_url("redis+sentinel://127.0.0.1:26379,h:26380/mrtr").unwrap(),
            (
                vec![
                    "redis://127.0.0.1:26379".to_owned(),
                    "redis://h:26380".to_owned()
                ],
                "mrtr".to_owned()
            )
        );
        for bad in [
            "redis+sentinel://127.0.0.1:26379",
            "redis+sentinel://127.0.0.1:26379/",
            "redis+sentinel://127.0.0.1/g",
            "redis+sentinel://u@h:1/g",
            "redis+sentinel://h:1/a b",
        ] {
            assert!(parse_sentinel_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_redis_urls_are_taken() {
        assert!(RedisStore::open("http://x", DEFAULT_TIMEOUT, "t").is_err());
        assert!(RedisStore::open("redis://127.0.0.1:1/0", DEFAULT_TIMEOUT, "t").is_ok());
    }

    #[test]
    fn retention_is_the_remaining_life_plus_the_skew_allowance_by_the_replicas_clock() {
        assert_eq!(
            retention_ms(1_000_120, 1_000_000),
            (120 + MAX_CLOCK_SKEW_S) * 1000
        );
        // A replica whose clock is past the expiry still keeps the id for the allowance.
        assert_eq!(retention_ms(100, 130), MAX_CLOCK_SKEW_S * 1000);
        assert_eq!(retention_ms(u64::MAX, 0), u64::MAX);
    }

    #[test]
    fn nobody_listening_means_unavailable_not_accepted() {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let s = RedisStore::open("redis://127.0.0.1:1/0", DEFAULT_TIMEOUT, "test").unwrap();
        assert_eq!(s.redeem("t", 0, 100, 0), Redemption::Unavailable);
        assert_eq!(s.lookup("t", 0), Lookup::Unavailable);
        assert_eq!(s.len(), 0);
    }
}
