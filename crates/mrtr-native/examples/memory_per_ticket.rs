//! What one remembered redemption costs in `mrtr-server`'s own memory (`--single-use`
//! without `--redemption`): fills a store with ticket ids like the server's (16
//! characters) and measures how much the process's resident memory grew. A figure of `make bench`.
//!
//! cargo run --profile speed -p mrtr-native --example memory_per_ticket [N]

use mrtr_core::redemption::{MemoryStore, Redemption, RedemptionStore};

/// This process's resident memory in bytes, as Linux counts it (`VmRSS`).
fn resident_bytes() -> i64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<i64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(MemoryStore::DEFAULT_CAPACITY);
    let store = MemoryStore::new(n);
    let before = resident_bytes();
    for i in 0..n {
        // 16 characters, as the server's ticket ids are (12 random bytes in base64url).
        let id = format!("{i:016x}");
        assert_eq!(store.redeem(&id, 1, 1_000, 1), Redemption::First);
    }
    let bytes = resident_bytes() - before;
    println!(
        "{{\"ids\":{n},\"bytes\":{bytes},\"bytes_per_id\":{:.1}}}",
        bytes as f64 / n as f64
    );
}
