//! A cluster of two replicas behind nginx over a memory of redemptions (one Redis or three
//! etcd members), started and stopped by `scripts/cluster.sh`, the script `make cluster` runs.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU16, Ordering};

use super::{Endpoint, KEY};

/// Where the replicas remember redemptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    /// One Redis.
    Redis,
    /// A Redis primary, its asynchronous replica and one Sentinel that fails over to it.
    Sentinel,
    /// Three etcd members.
    Etcd,
}

/// A cluster of its own per test: its own folder and four ports from `base`.
pub struct Cluster {
    pub dir: PathBuf,
    pub base: u16,
    pub balancer: Endpoint,
    pub a: Endpoint,
    pub b: Endpoint,
    /// MRTR_CLUSTER_CORS_ORIGIN for the replicas.
    pub cors: String,
    /// Where the replicas remember redemptions.
    pub store: Store,
}

static NEXT: AtomicU16 = AtomicU16::new(0);

fn free(port: u16) -> bool {
    std::net::TcpListener::bind(("127.0.0.1", port)).is_ok()
}

impl Cluster {
    pub fn start() -> Cluster {
        Cluster::start_with_cors("")
    }

    pub fn start_with_cors(cors: &str) -> Cluster {
        Cluster::start_with(Store::Redis, cors, false)
    }

    /// A cluster over `store`; `unguarded`: the replicas' store claims without its guard
    /// (`--unsafe-unguarded-store`, etcd only: the history checker's self-test).
    pub fn start_with(store: Store, cors: &str, unguarded: bool) -> Cluster {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        // Nine free ports in a row (nginx, two replicas, Redis or etcd's three members' two
        // ports each), somewhere this run has not used.
        let mut base = 20_000 + (std::process::id() % 2_000) as u16 * 10;
        loop {
            base += NEXT.fetch_add(10, Ordering::Relaxed);
            if (0..9).all(|i| free(base + i)) {
                break;
            }
        }
        let dir = root.join(format!("target/cluster-test/{base}"));
        let _ = std::fs::remove_dir_all(&dir);
        let c = Cluster {
            balancer: Endpoint::new(&format!("http://127.0.0.1:{base}/mcp")),
            a: Endpoint::new(&format!("http://127.0.0.1:{}/mcp", base + 1)),
            b: Endpoint::new(&format!("http://127.0.0.1:{}/mcp", base + 2)),
            dir,
            base,
            cors: cors.to_owned(),
            store,
        };
        std::fs::create_dir_all(&c.dir).unwrap();
        if unguarded {
            std::fs::write(c.dir.join("unguarded"), "").unwrap();
        }
        for r in ["replica-a", "replica-b"] {
            c.set_keys(r, &[("k1", KEY)]);
        }
        c.script(&["start"]);
        c
    }

    pub fn script(&self, args: &[&str]) {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_mrtr-server"));
        let out = Command::new(root.join("scripts/cluster.sh"))
            .args(args)
            .env("MRTR_CLUSTER_DIR", &self.dir)
            .env("MRTR_CLUSTER_PORT", self.base.to_string())
            .env("MRTR_CLUSTER_BIN", bin.parent().unwrap())
            .env("MRTR_CLUSTER_CORS_ORIGIN", &self.cors)
            .env(
                "MRTR_CLUSTER_STORE",
                match self.store {
                    Store::Redis => "redis",
                    Store::Sentinel => "sentinel",
                    Store::Etcd => "etcd",
                },
            )
            .output()
            .expect("scripts/cluster.sh runs");
        assert!(
            out.status.success(),
            "cluster.sh {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub fn stop(&self, part: &str) {
        self.script(&["stop-one", part]);
    }

    pub fn start_part(&self, part: &str) {
        self.script(&["start-one", part]);
    }

    /// Writes a replica's keys (the first signs); takes effect at its next start.
    pub fn set_keys(&self, replica: &str, keys: &[(&str, &str)]) {
        let spec: Vec<String> = keys.iter().map(|(id, hex)| format!("{id}={hex}")).collect();
        std::fs::write(self.dir.join(format!("{replica}.keys")), spec.join(",")).unwrap();
    }

    pub fn restart(&self, replica: &str, keys: &[(&str, &str)]) {
        self.stop(replica);
        self.set_keys(replica, keys);
        self.start_part(replica);
    }

    /// The port of the replica that served the balancer's `n`th request (from 1). nginx
    /// writes its access log line after the response has gone out, so the line may lag
    /// the reply a little: wait for it, boundedly.
    pub fn upstream_of(&self, n: usize) -> u16 {
        let path = self.dir.join("nginx-access.log");
        for _ in 0..200 {
            let log = std::fs::read_to_string(&path).unwrap_or_default();
            if let Some(line) = log.lines().nth(n - 1) {
                return line.rsplit(':').next().unwrap().trim().parse().unwrap();
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        panic!("no access log line for request {n} within 2 s");
    }

    pub fn replica_at(&self, port: u16) -> &'static str {
        if port == self.base + 1 {
            "replica-a"
        } else {
            "replica-b"
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.script(&["stop"]);
        // Logs stay behind only for a test that failed.
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
