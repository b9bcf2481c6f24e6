//! A redemption store on Redis, shared by every replica: single use across a fleet.
//!
//! A redemption is one atomic command, `SET mrtr:redeemed:<tid> 1 NX EXAT <exp>`: the first
//! of any number of racing replicas gets `OK`, the rest get nothing, and the key vanishes
//! when the ticket would have expired anyway, so the store never outgrows the live tickets.
//! A lookup (the ask-again path) is `EXISTS`. Every call is bounded by a timeout; when
//! Redis is down or slow the store answers `Unavailable` and the server refuses (fail
//! closed), logs why, and reconnects by itself on a later call.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use mrtr_core::checks::MAX_CLOCK_SKEW_S;
use mrtr_core::redemption::{Lookup, Redemption, RedemptionStore};

/// How long one Redis call (connect, send, receive) may take before the store gives up.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(250);
const KEY_PREFIX: &str = "mrtr:redeemed:";

pub struct RedisStore {
    client: redis::Client,
    /// One connection, opened on first use and again after a failure.
    conn: Mutex<Option<redis::Connection>>,
    timeout: Duration,
    /// Where the log lines come from (the replica's name).
    name: String,
    /// Redemptions this process recorded.
    recorded: AtomicUsize,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("server", &self.client.get_connection_info().addr())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store for `url` (`redis://HOST:PORT[/DB]`); nothing is connected yet, so a server
    /// starts even while Redis is down.
    pub fn open(url: &str, timeout: Duration, name: &str) -> Result<RedisStore, String> {
        if !url.starts_with("redis://") {
            return Err(format!(
                "--redemption takes redis://HOST:PORT[/DB], not {url:?}"
            ));
        }
        let client = redis::Client::open(url).map_err(|e| format!("--redemption {url:?}: {e}"))?;
        Ok(RedisStore {
            client,
            conn: Mutex::new(None),
            timeout,
            name: name.to_owned(),
            recorded: AtomicUsize::new(0),
        })
    }

    /// Runs one command on the connection, connecting first if needed. Any failure drops
    /// the connection (the next call reconnects) and is logged.
    fn run<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Option<T> {
        let Ok(mut slot) = self.conn.lock() else {
            eprintln!("[{}] redemption store: lock poisoned", self.name);
            return None;
        };
        if slot.is_none() {
            match self.connect() {
                Ok(c) => *slot = Some(c),
                Err(e) => {
                    eprintln!("[{}] redemption store unavailable: {e}", self.name);
                    return None;
                }
            }
        }
        let conn = slot.as_mut()?;
        match cmd.query::<T>(conn) {
            Ok(v) => Some(v),
            Err(e) => {
                eprintln!("[{}] redemption store unavailable: {e}", self.name);
                *slot = None;
                None
            }
        }
    }

    fn connect(&self) -> redis::RedisResult<redis::Connection> {
        let conn = self.client.get_connection_with_timeout(self.timeout)?;
        conn.set_read_timeout(Some(self.timeout))?;
        conn.set_write_timeout(Some(self.timeout))?;
        Ok(conn)
    }
}

impl RedemptionStore for RedisStore {
    fn redeem(&self, ticket_id: &str, expires_s: u64, _now_s: u64) -> Redemption {
        // Kept a little past the ticket's expiry, so a replica whose clock runs behind
        // Redis's still finds the id while it would accept the ticket.
        let until = expires_s.saturating_add(MAX_CLOCK_SKEW_S);
        let mut cmd = redis::cmd("SET");
        cmd.arg(format!("{KEY_PREFIX}{ticket_id}"))
            .arg(1)
            .arg("NX")
            .arg("EXAT")
            .arg(until);
        match self.run::<Option<String>>(&cmd) {
            Some(Some(_)) => {
                self.recorded.fetch_add(1, Ordering::Relaxed);
                Redemption::First
            }
            Some(None) => Redemption::Repeat,
            None => Redemption::Unavailable,
        }
    }

    fn lookup(&self, ticket_id: &str, _now_s: u64) -> Lookup {
        let mut cmd = redis::cmd("EXISTS");
        cmd.arg(format!("{KEY_PREFIX}{ticket_id}"));
        match self.run::<u64>(&cmd) {
            Some(0) => Lookup::NotRedeemed,
            Some(_) => Lookup::Redeemed,
            None => Lookup::Unavailable,
        }
    }

    fn len(&self) -> usize {
        self.recorded.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_redis_urls_are_taken() {
        assert!(RedisStore::open("http://x", DEFAULT_TIMEOUT, "t").is_err());
        assert!(RedisStore::open("redis://127.0.0.1:1/0", DEFAULT_TIMEOUT, "t").is_ok());
    }

    #[test]
    fn nobody_listening_means_unavailable_not_accepted() {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let s = RedisStore::open("redis://127.0.0.1:1/0", DEFAULT_TIMEOUT, "test").unwrap();
        assert_eq!(s.redeem("t", 100, 0), Redemption::Unavailable);
        assert_eq!(s.lookup("t", 0), Lookup::Unavailable);
        assert_eq!(s.len(), 0);
    }
}
