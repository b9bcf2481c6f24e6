//! Two real replicas behind real nginx, sharing a key and a Redis memory of redemptions
//! (started by `scripts/cluster.sh`, the same script `make cluster` runs), and the faults
//! they must survive. Loopback only; every loop is bounded; every process is stopped by
//! its PID when a test ends.
//!
//! They need nginx and redis-server, so they are ignored by a plain `cargo test`;
//! `make test-cluster` (part of `make test`) runs them.

mod common;

use std::process::Command;
use std::sync::atomic::Ordering;

use common::cluster::{Cluster, Store};
use common::*;
use serde_json::{json, Value};

fn refused(r: &Value) -> bool {
    r["error"]["code"] == -32602 && r["error"]["message"] == "Invalid or expired requestState"
}

#[test]
#[ignore = "needs nginx and redis-server: make test-cluster"]
fn the_balancer_alternates_and_a_round_trip_crosses_replicas() {
    let c = Cluster::start();
    let t = c.balancer.ticket("bob", "staging");
    let minted_by = c.upstream_of(1);
    let (_, r) = c
        .balancer
        .post(Some("bob"), &deploy(2, "staging", Some(&t)));
    assert!(deployed(&r), "{r}");
    assert_ne!(
        c.upstream_of(2),
        minted_by,
        "round robin sends the retry to the other replica"
    );
}

#[test]
#[ignore = "needs nginx and redis-server: make test-cluster"]
fn the_survivor_finishes_when_the_minting_replica_dies() {
    let c = Cluster::start();
    let t = c.balancer.ticket("bob", "staging");
    let minter = c.replica_at(c.upstream_of(1));
    c.stop(minter);
    for id in 2..4 {
        // Both requests land on the survivor, whichever way round robin turns.
        let (status, r) = c
            .balancer
            .post(Some("bob"), &deploy(id, "staging", Some(&t)));
        assert_eq!(status, 200);
        if id == 2 {
            assert!(deployed(&r), "the survivor completes the deploy: {r}");
        } else {
            assert!(refused(&r), "and refuses it the second time: {r}");
        }
        assert_ne!(c.replica_at(c.upstream_of(id as usize)), minter);
    }
}

#[test]
#[ignore = "needs nginx and redis-server: make test-cluster"]
fn the_honest_retry_sent_to_a_then_to_b_is_refused_the_second_time() {
    let c = Cluster::start();
    let t = c.a.ticket("bob", "staging");
    let (_, r) = c.a.post(Some("bob"), &deploy(2, "staging", Some(&t)));
    assert!(deployed(&r), "{r}");
    let (_, r) = c.b.post(Some("bob"), &deploy(3, "staging", Some(&t)));
    assert!(refused(&r), "B remembers what A redeemed: {r}");
    // Nor can it be laundered on B through a retry without the answer.
    let mut stripped = deploy(4, "staging", Some(&t));
    stripped["params"]
        .as_object_mut()
        .unwrap()
        .remove("inputResponses");
    let (_, r) = c.b.post(Some("bob"), &stripped);
    assert!(refused(&r), "{r}");
}

#[test]
#[ignore = "needs nginx and redis-server: make test-cluster"]
fn racing_retries_over_both_replicas_deploy_once_every_trial() {
    let c = Cluster::start();
    let trials = 25;
    for trial in 0..trials {
        let t = c.a.ticket("bob", "staging");
        let barrier = std::sync::Barrier::new(8);
        let deploys: usize = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|i| {
                    let (t, barrier, c) = (&t, &barrier, &c);
                    s.spawn(move || {
                        let to = if i % 2 == 0 { &c.a } else { &c.b };
                        barrier.wait();
                        let (_, r) = to.post(Some("bob"), &deploy(10 + i, "staging", Some(t)));
                        assert!(deployed(&r) || refused(&r), "{r}");
                        usize::from(deployed(&r))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(deploys, 1, "trial {trial} of {trials}");
    }
}

#[test]
#[ignore = "needs nginx and redis-server: make test-cluster"]
fn with_redis_down_redemptions_are_refused_and_it_recovers_by_itself() {
    let c = Cluster::start();
    let t = c.balancer.ticket("bob", "staging");
    c.stop("redis");
    for (id, to) in [(2, &c.a), (3, &c.b), (4, &c.balancer)] {
        let (status, r) = to.post(Some("bob"), &deploy(id, "staging", Some(&t)));
        assert_eq!(status, 200);
        assert!(!deployed(&r), "never deploys unrecorded: {r}");
        assert_eq!(r["error"]["code"], -32603, "{r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("nothing was done"),
            "{r}"
        );
    }
    // The servers keep serving what needs no store, a first call included.
    assert!(c.a.serving() && c.b.serving());
    let t2 = c.b.ticket("bob", "prod");
    c.start_part("redis");
    // Nothing was spent while Redis was down: the same honest retry now goes through, once.
    let (_, r) = c
        .balancer
        .post(Some("bob"), &deploy(5, "staging", Some(&t)));
    assert!(deployed(&r), "{r}");
    let (_, r) = c.a.post(Some("bob"), &deploy(6, "prod", Some(&t2)));
    assert!(deployed(&r), "{r}");
    let (_, r) = c.b.post(Some("bob"), &deploy(7, "prod", Some(&t2)));
    assert!(refused(&r), "{r}");
    let log = std::fs::read_to_string(c.dir.join("replica-a.log")).unwrap();
    assert!(log.contains("redemption store unavailable"), "{log}");
}

#[test]
#[ignore = "needs nginx and redis-server: make test-cluster"]
fn a_redis_restart_without_persistence_forgets_nothing_it_would_accept() {
    let c = Cluster::start();
    // Each replica redeems once, so each keeps a connection to this Redis open.
    let mut spent = Vec::new();
    for (id, to) in [(2, &c.a), (3, &c.b)] {
        let t = to.ticket("bob", "staging");
        let (_, r) = to.post(Some("bob"), &deploy(id, "staging", Some(&t)));
        assert!(deployed(&r), "{r}");
        spent.push(t);
    }
    // Redis keeps its memory on disk; here it is lost all the same (its files deleted while
    // it is stopped), as a restart without persistence or a lost disk would lose it.
    c.stop("redis");
    std::fs::remove_dir_all(c.dir.join("redis-data")).unwrap();
    c.start_part("redis");
    // The replay of each spent ticket, on either replica, is still refused: it was minted
    // before the new memory began. It is also each replica's first command on its kept,
    // now dead, connection: a refusal of the ticket (-32602), not "store unavailable".
    for (id, (to, t)) in [(&c.b, &spent[0]), (&c.a, &spent[1])]
        .into_iter()
        .enumerate()
    {
        let (_, r) = to.post(Some("bob"), &deploy(20 + id as i64, "staging", Some(t)));
        assert!(!deployed(&r), "a spent ticket never deploys again: {r}");
        assert_eq!(r["error"]["code"], -32602, "{r}");
    }
    // Tickets minted now complete, once.
    for (id, to) in [(4, &c.a), (5, &c.b)] {
        let t = to.ticket("bob", "prod");
        let (status, r) = to.post(Some("bob"), &deploy(id, "prod", Some(&t)));
        assert_eq!(status, 200);
        assert!(deployed(&r), "{r}");
        // And it is spent: the same retry again is refused.
        let (_, again) = to.post(Some("bob"), &deploy(id + 10, "prod", Some(&t)));
        assert!(refused(&again), "{again}");
    }
    let log = std::fs::read_to_string(c.dir.join("replica-a.log")).unwrap();
    assert!(log.contains("the kept connection was closed"), "{log}");
}

#[test]
#[ignore = "needs nginx and redis-server: make test-cluster"]
fn a_key_rolls_across_the_fleet_without_refusing_tickets_in_flight() {
    let k1 = KEY;
    let k2 = "6b32".to_owned() + &"17".repeat(31);
    let k2 = k2.as_str();
    let c = Cluster::start();
    let old = c.a.ticket("bob", "staging");
    // 1. Every replica learns k2 (verifies it, still signs with k1), one at a time.
    c.restart("replica-b", &[("k1", k1), ("k2", k2)]);
    c.restart("replica-a", &[("k1", k1), ("k2", k2)]);
    // 2. A signs with k2 first; B still signs with k1.
    c.restart("replica-a", &[("k2", k2), ("k1", k1)]);
    let from_a = c.a.ticket("bob", "staging");
    let from_b = c.b.ticket("bob", "staging");
    let in_flight = c.b.ticket("bob", "prod");
    let (_, r) = c.b.post(Some("bob"), &deploy(2, "staging", Some(&from_a)));
    assert!(deployed(&r), "a k2 ticket completes on B: {r}");
    let (_, r) = c.a.post(Some("bob"), &deploy(3, "staging", Some(&from_b)));
    assert!(deployed(&r), "a k1 ticket completes on A: {r}");
    let (_, r) = c.b.post(Some("bob"), &deploy(4, "staging", Some(&old)));
    assert!(
        deployed(&r),
        "the ticket from before the roll completes: {r}"
    );
    // 3. B signs with k2 too; 4. k1 is retired everywhere: its tickets are refused.
    c.restart("replica-b", &[("k2", k2), ("k1", k1)]);
    c.restart("replica-a", &[("k2", k2)]);
    c.restart("replica-b", &[("k2", k2)]);
    for (id, to) in [(5, &c.a), (6, &c.b)] {
        let (_, r) = to.post(Some("bob"), &deploy(id, "prod", Some(&in_flight)));
        assert!(refused(&r), "a k1 ticket after k1 retired: {r}");
    }
    let fresh = c.balancer.ticket("bob", "staging");
    let (_, r) = c
        .balancer
        .post(Some("bob"), &deploy(7, "staging", Some(&fresh)));
    assert!(deployed(&r), "{r}");
    // The keys never reach a log.
    for f in ["replica-a.log", "replica-b.log"] {
        let log = std::fs::read_to_string(c.dir.join(f)).unwrap();
        assert!(!log.contains(k1) && !log.contains(k2), "{f} holds a key");
        assert!(log.contains("keys k2"), "{f} names its keys by id");
    }
}

/// A fault proxy between one replica and Redis: every byte goes through at once, except that
/// when armed it holds back the reply to the next `SET` (the claim) for `hold`, past the
/// store's 250 ms limit. The command itself reaches Redis and runs: only its answer is late.
/// Bounded: it serves until dropped, each connection until either side closes.
struct HoldBackProxy {
    port: u16,
    armed: std::sync::Arc<std::sync::atomic::AtomicBool>,
    held: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl HoldBackProxy {
    fn start(redis_port: u16, hold: std::time::Duration) -> HoldBackProxy {
        use std::io::{Read, Write};
        use std::net::{TcpListener, TcpStream};
        use std::sync::atomic::{AtomicBool, AtomicUsize};
        use std::sync::Arc;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let armed = Arc::new(AtomicBool::new(false));
        let held = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (a, h, st) = (armed.clone(), held.clone(), stop.clone());
        std::thread::spawn(move || {
            while !st.load(Ordering::Relaxed) {
                let Ok((client, _)) = listener.accept() else {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    continue;
                };
                client.set_nonblocking(false).unwrap();
                let Ok(server) = TcpStream::connect(("127.0.0.1", redis_port)) else {
                    continue;
                };
                let hold_next = Arc::new(AtomicBool::new(false));
                let (mut c_in, mut s_out) =
                    (client.try_clone().unwrap(), server.try_clone().unwrap());
                let (armed, flag) = (a.clone(), hold_next.clone());
                std::thread::spawn(move || {
                    let mut buf = [0u8; 16 * 1024];
                    while let Ok(n) = c_in.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        let chunk = &buf[..n];
                        // The claim: the script with SET NX PX (see redis_store::CLAIM_SCRIPT).
                        if chunk.windows(10).any(|w| w == b"'NX', 'PX'")
                            && armed.swap(false, Ordering::SeqCst)
                        {
                            flag.store(true, Ordering::SeqCst);
                        }
                        if s_out.write_all(chunk).is_err() {
                            break;
                        }
                    }
                    let _ = s_out.shutdown(std::net::Shutdown::Both);
                });
                let (mut s_in, mut c_out) = (server, client);
                let held = h.clone();
                std::thread::spawn(move || {
                    let mut buf = [0u8; 16 * 1024];
                    while let Ok(n) = s_in.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        if hold_next.swap(false, Ordering::SeqCst) {
                            held.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(hold);
                        }
                        if c_out.write_all(&buf[..n]).is_err() {
                            break;
                        }
                    }
                    let _ = c_out.shutdown(std::net::Shutdown::Both);
                });
            }
        });
        HoldBackProxy {
            port,
            armed,
            held,
            stop,
        }
    }

    fn arm(&self) {
        self.armed.store(true, Ordering::SeqCst);
    }
}

impl Drop for HoldBackProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Redis ran the claim but its reply missed the limit: replica A answered "nothing was done,
/// send the same retry again". That must stay true. Afterwards the same retry, sent to
/// either replica, completes exactly once; and two copies racing after the same fault
/// deploy once between them.
#[test]
#[ignore = "needs nginx and redis-server: make test-cluster"]
fn a_claim_whose_reply_is_lost_spends_nothing_and_the_same_retry_completes_once() {
    let c = Cluster::start();
    let proxy = HoldBackProxy::start(c.base + 3, std::time::Duration::from_millis(1500));
    std::fs::write(
        c.dir.join("replica-a.redemption"),
        format!("redis://127.0.0.1:{}/0", proxy.port),
    )
    .unwrap();
    c.stop("replica-a");
    c.start_part("replica-a");
    let lost_reply = |id: i64, env: &str| {
        let t = c.a.ticket("bob", env);
        proxy.arm();
        let (_, r) = c.a.post(Some("bob"), &deploy(id, env, Some(&t)));
        assert_eq!(
            r["error"]["code"], -32603,
            "the claim's reply was held back: {r}"
        );
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("nothing was done"),
            "{r}"
        );
        t
    };
    // 1. The same retry, to B then A: B deploys, A refuses the copy.
    let t = lost_reply(2, "staging");
    assert_eq!(
        proxy.held.load(Ordering::SeqCst),
        1,
        "the proxy held one claim's reply"
    );
    let (_, r) = c.b.post(Some("bob"), &deploy(3, "staging", Some(&t)));
    assert!(deployed(&r), "the retry after the fault completes: {r}");
    let (_, r) = c.a.post(Some("bob"), &deploy(4, "staging", Some(&t)));
    assert!(refused(&r), "and only once: {r}");
    // 2. The same retry to A itself completes too.
    let t = lost_reply(5, "prod");
    let (_, r) = c.a.post(Some("bob"), &deploy(6, "prod", Some(&t)));
    assert!(deployed(&r), "{r}");
    // 3. Two copies racing to A and B after the fault: one deploy.
    for trial in 0..5 {
        let t = lost_reply(10 + trial * 3, "staging");
        let barrier = std::sync::Barrier::new(2);
        let deploys: usize = std::thread::scope(|s| {
            let hs: Vec<_> = [&c.a, &c.b]
                .into_iter()
                .enumerate()
                .map(|(i, to)| {
                    let (t, barrier) = (&t, &barrier);
                    s.spawn(move || {
                        barrier.wait();
                        let (_, r) = to.post(
                            Some("bob"),
                            &deploy(11 + trial * 3 + i as i64, "staging", Some(t)),
                        );
                        assert!(deployed(&r) || refused(&r), "{r}");
                        usize::from(deployed(&r))
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(deploys, 1, "trial {trial}");
    }
    let log = std::fs::read_to_string(c.dir.join("replica-a.log")).unwrap();
    assert!(
        log.contains("a claim's reply was lost; released it"),
        "{log}"
    );
}

/// A wrong-kind answer on one replica spends nothing in the shared memory: bob's honest retry
/// on the other replica deploys, once, and the ticket re-asked for the wrong-kind answer is
/// a copy of the same flow (refused after that deploy, on either replica).
#[test]
#[ignore = "needs nginx and redis-server: make test-cluster"]
fn a_wrong_kind_answer_on_one_replica_spends_nothing_on_the_other() {
    let c = Cluster::start();
    let t = c.a.ticket("bob", "staging");
    let mut wrong = deploy(2, "staging", Some(&t));
    wrong["params"]["inputResponses"] = serde_json::json!({"confirm": {"roots": []}});
    let (_, r) = c.a.post(Some("bob"), &wrong);
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    let reasked = r["result"]["requestState"].as_str().unwrap().to_owned();
    let (_, r) = c.b.post(Some("bob"), &deploy(3, "staging", Some(&t)));
    assert!(deployed(&r), "{r}");
    for (id, to) in [(4, &c.a), (5, &c.b)] {
        let (_, r) = to.post(Some("bob"), &deploy(id, "staging", Some(&reasked)));
        assert!(refused(&r), "{r}");
    }
}

#[test]
#[ignore = "needs nginx and redis-server: make test-cluster"]
fn a_page_on_a_listed_origin_calls_through_nginx_and_sees_both_replicas_names() {
    let page = "http://127.0.0.1:9999";
    let c = Cluster::start_with_cors(&format!("https://app.example.com {page}"));
    let preflight = c
        .balancer
        .agent
        .options(&c.balancer.url)
        .header("Origin", page)
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "content-type,mcp-method,mcp-name,mcp-protocol-version",
        )
        .header("Access-Control-Request-Private-Network", "true")
        .call()
        .unwrap();
    assert_eq!(preflight.status(), 204);
    let h = preflight.headers();
    assert_eq!(h["access-control-allow-origin"], page);
    assert_eq!(h["access-control-allow-private-network"], "true");
    let refused = c
        .balancer
        .agent
        .options(&c.balancer.url)
        .header("Origin", "http://127.0.0.1:9998")
        .header("Access-Control-Request-Method", "POST")
        .call()
        .unwrap();
    assert_eq!(refused.status(), 403);
    let mut names = Vec::new();
    for id in 1..=2 {
        let msg = deploy(id, "staging", None);
        let mut req = c
            .balancer
            .agent
            .post(&c.balancer.url)
            .header("Content-Type", "application/json")
            .header("Origin", page);
        for (k, v) in standard_headers(&msg) {
            req = req.header(k, v);
        }
        let resp = req.send(msg.to_string()).unwrap();
        assert_eq!(resp.status(), 200);
        let h = resp.headers();
        assert_eq!(h["access-control-allow-origin"], page);
        assert_eq!(h["access-control-expose-headers"], "Mrtr-Replica");
        names.push(h["mrtr-replica"].to_str().unwrap().to_owned());
    }
    names.sort();
    assert_eq!(names, ["replica-a", "replica-b"], "round robin, each named");
}

/// A Redis that may evict keys under memory pressure would forget redemptions silently:
/// the store refuses it (unavailable, so the server answers -32603), and takes one that
/// never evicts.
#[test]
#[ignore = "needs redis-server: make test-cluster"]
fn a_redis_that_may_evict_is_refused_as_unavailable() {
    use mrtr_core::redemption::{Redemption, RedemptionStore};
    use mrtr_native::redis_store::{RedisStore, DEFAULT_TIMEOUT};
    for (policy, expected) in [
        ("allkeys-lru", Redemption::Unavailable),
        ("noeviction", Redemption::First),
    ] {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut redis = Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
            ])
            .args(["--appendonly", "no", "--maxmemory-policy", policy])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server runs");
        let up = (0..100).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        assert!(up, "redis-server on {port}");
        let store =
            RedisStore::open(&format!("redis://127.0.0.1:{port}/0"), DEFAULT_TIMEOUT, "t").unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        // Minted after this Redis began (its first second is refused either way).
        let got = store.redeem("t", now + 2, now + 100, now);
        let _ = redis.kill();
        let _ = redis.wait();
        assert_eq!(got, expected, "maxmemory-policy {policy}");
    }
}

/// A task started through one replica is read, answered and finished through the other, and
/// nobody else can see it: its state lives in the shared store, not in either process.
fn a_task_crosses_replicas(store: Store) {
    let c = Cluster::start_with(store, "", false);
    let call = tasks_request(
        1,
        "tools/call",
        json!({"name": "confirm_delete", "arguments": {"filename": "report.txt"}}),
    );
    let (_, created) = c.a.post(Some("bob"), &call);
    let id = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("{created}"))
        .to_owned();
    let (_, got) = c.b.post(
        Some("bob"),
        &tasks_request(2, "tasks/get", json!({"taskId": id})),
    );
    assert_eq!(got["result"]["status"], "input_required", "{got}");
    // Somebody else, on either replica: not found, exactly as an unknown id.
    for (n, r) in [(3, &c.a), (4, &c.b)] {
        let (_, theirs) = r.post(
            Some("eve"),
            &tasks_request(n, "tasks/get", json!({"taskId": id})),
        );
        assert_eq!(theirs["error"]["message"], "Task not found", "{theirs}");
    }
    let answer = json!({"taskId": id, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
    let (_, ack) = c.b.post(
        Some("bob"),
        &tasks_request(5, "tasks/update", answer.clone()),
    );
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    // The replica that started it is gone; the other finishes it.
    c.stop("replica-a");
    let (_, done) = c.b.post(
        Some("bob"),
        &tasks_request(6, "tasks/get", json!({"taskId": id})),
    );
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["result"]["content"][0]["text"],
        "Deleted report.txt."
    );
    // The same answer again changes nothing.
    let (_, again) =
        c.b.post(Some("bob"), &tasks_request(7, "tasks/update", answer));
    assert_eq!(again["result"], json!({"resultType": "complete"}));
    let (_, still) = c.b.post(
        Some("bob"),
        &tasks_request(8, "tasks/get", json!({"taskId": id})),
    );
    assert_eq!(
        still["result"]["lastUpdatedAt"],
        done["result"]["lastUpdatedAt"]
    );
}

#[test]
#[ignore = "needs nginx and redis-server: make test-cluster"]
fn a_task_started_on_one_replica_is_finished_on_the_other_over_redis() {
    a_task_crosses_replicas(Store::Redis);
}

#[test]
#[ignore = "needs nginx and etcd: make test-cluster"]
fn a_task_started_on_one_replica_is_finished_on_the_other_over_etcd() {
    a_task_crosses_replicas(Store::Etcd);
}
