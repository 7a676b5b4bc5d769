//! Damage on disk: bytes flipped inside a block or a journal batch in the
//! database file, or a file that is no database at all. The store opens,
//! skips what is damaged, reports it, and keeps working.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

mod common;

use std::path::Path;

use common::*;
use warden_history::{HistoryStore, Retention};
use warden_protocol::metrics::MetricName;

/// Flip a byte in the middle of `blob`'s copy inside the file.
fn flip_in_file(path: &Path, blob: &[u8]) {
    let mut bytes = std::fs::read(path).expect("read db");
    let at = bytes
        .windows(blob.len())
        .position(|w| w == blob)
        .expect("the blob is in the main file (checkpointed)");
    bytes[at + blob.len() / 2] ^= 0x5a;
    std::fs::write(path, bytes).expect("write db");
}

fn blob(path: &Path, sql: &str) -> Vec<u8> {
    let conn = rusqlite::Connection::open(path).expect("raw");
    conn.query_row(sql, [], |r| r.get(0)).expect("blob")
}

/// Three sealed windows of `hosts` cpu series, plus one open.
fn write_windows(path: &Path, clock: &Manual, hosts: u64) {
    let store = open(path, clock, Retention::default());
    for i in 0..(4 * 90u64) {
        let at = T0 + i * 10 * S;
        clock.set(at);
        let batch: Vec<_> = (0..hosts)
            .map(|h| {
                cpu(
                    &format!("host:{h}"),
                    at,
                    ((i * 13 + h * 7) % 1000) as f64 / 10.0,
                )
            })
            .collect();
        store.ingest(&batch).expect("ingest");
        if i % 6 == 0 {
            store.flush().expect("flush");
        }
    }
    store.flush().expect("flush");
    // Dropping the last connection checkpoints the WAL into the file.
}

#[test]
fn a_flipped_block_reads_as_a_gap_and_is_reported() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join(HistoryStore::FILE_NAME);
    let clock = Manual::new(T0);
    write_windows(&path, &clock, 5);
    let id: i64 = rusqlite::Connection::open(&path)
        .expect("raw")
        .query_row("SELECT id FROM series WHERE resource = 'host:2'", [], |r| {
            r.get(0)
        })
        .expect("id");
    let second_window = T0 + 15 * M;
    let key = ((second_window / (10 * S)) << 32) as i64 | id;
    let target = blob(
        &path,
        &format!("SELECT data FROM blocks_10 WHERE key = {key}"),
    );
    flip_in_file(&path, &target);

    let store = open(&path, &clock, Retention::default());
    assert_eq!(store.health().corrupt_blocks, 0, "nothing read yet");
    let p = store
        .points(
            "host:2",
            MetricName::CpuPercent,
            "",
            T0,
            T0 + H,
            Some(10 * S),
        )
        .expect("a damaged block is not an error");
    for (i, (at, v)) in p.points.iter().enumerate() {
        let damaged = (second_window..second_window + 15 * M).contains(at);
        assert_eq!(v.is_none(), damaged, "slot {i}");
    }
    // Asked again: still one block.
    store
        .points(
            "host:2",
            MetricName::CpuPercent,
            "",
            T0,
            T0 + H,
            Some(10 * S),
        )
        .expect("points");
    assert_eq!(store.health().corrupt_blocks, 1);
    // Its neighbours and the other tiers are whole.
    for host in ["host:1", "host:3"] {
        let p = store
            .points(host, MetricName::CpuPercent, "", T0, T0 + H, Some(10 * S))
            .expect("points");
        assert!(p.points.iter().all(|p| p.1.is_some()), "{host}");
    }
    let p = store
        .points("host:2", MetricName::CpuPercent, "", T0, T0 + H, Some(M))
        .expect("points");
    assert!(p.points.iter().all(|p| p.1.is_some()));
    // And it keeps working.
    clock.set(T0 + H + 5 * M);
    store
        .ingest(&[cpu("host:2", T0 + H + 4 * M, 1.0)])
        .expect("ingest");
    store.flush().expect("flush");
}

#[test]
fn a_flipped_rollup_block_is_replaced_when_written_again_and_reported() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("h.db");
    let clock = Manual::new(T0);
    write_windows(&path, &clock, 3);
    // The 1 h tier's block, written again at every seal.
    let target = blob(&path, "SELECT data FROM blocks_3600 ORDER BY key LIMIT 1");
    flip_in_file(&path, &target);
    let store = open(&path, &clock, Retention::default());
    clock.set(T0 + H + 5 * M);
    store.flush().expect("the seal goes on");
    assert_eq!(store.health().corrupt_blocks, 1);
}

#[test]
fn a_flipped_journal_batch_is_skipped_and_reported() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("h.db");
    // The clock stays where the open window starts at T0: no seal
    // rewrites the journal meanwhile.
    let clock = Manual::new(T0 + 3 * M);
    {
        let store = open(&path, &clock, Retention::default());
        for i in 0..30u64 {
            store
                .ingest(&[cpu("host:a", T0 + i * 10 * S, i as f64)])
                .expect("ingest");
            // Batches of ten samples.
            if i % 10 == 9 {
                store.flush().expect("flush");
            }
        }
    }
    let target = blob(
        &path,
        "SELECT data FROM journal ORDER BY id LIMIT 1 OFFSET 1",
    );
    flip_in_file(&path, &target);
    let store = open(&path, &clock, Retention::default());
    assert_eq!(store.health().corrupt_journal_batches, 1);
    let p = store
        .points("host:a", MetricName::CpuPercent, "", T0, T0 + 5 * M, None)
        .expect("points");
    let present: Vec<f64> = p.points.iter().filter_map(|p| p.1).collect();
    let want: Vec<f64> = (0..10).chain(20..30).map(|i| i as f64).collect();
    assert_eq!(present, want);
}

#[test]
fn a_file_that_is_no_database_is_moved_aside() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("h.db");
    std::fs::write(&path, vec![0xA5u8; 8192]).expect("garbage");
    let clock = Manual::new(T0);
    let store = open(&path, &clock, Retention::default());
    let aside = store.health().quarantined.expect("moved aside");
    assert!(aside.exists());
    assert_eq!(std::fs::read(&aside).expect("aside")[..4], [0xA5; 4]);
    store.ingest(&[cpu("host:a", T0, 5.0)]).expect("ingest");
    store.flush().expect("flush");
    assert_eq!(store.series("host:a").expect("series").len(), 1);
}
