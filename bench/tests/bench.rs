//! `skillhost-bench` runs each bench end to end on a small tree and reports
//! every figure it documents, so a benchmark cannot break unnoticed. The
//! whole-process benches run the `skillhost` binary built beside it.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The `skillhost` binary `cargo test --workspace` builds beside this
/// package's (the CLI's own tests need it too).
fn product() -> PathBuf {
    let bench = PathBuf::from(env!("CARGO_BIN_EXE_skillhost-bench"));
    let product = bench.with_file_name(format!("skillhost{}", std::env::consts::EXE_SUFFIX));
    assert!(
        product.is_file(),
        "{} is missing: run the workspace's tests (cargo test --workspace), which build it",
        product.display()
    );
    product
}

/// Runs `skillhost-bench ARGS` in a fresh home with the shared compile
/// cache, killing it past `limit`.
fn run(args: &[&str], limit: Duration) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_skillhost-bench"));
    command
        .args(args)
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("SKILLHOST_BIN", product())
        .env("SKILLHOST_CACHE_DIR", skillhost_tests::shared_cache_dir());
    output_within(&mut command, limit)
}

/// Runs `command`, killing it past `limit`.
fn output_within(command: &mut Command, limit: Duration) -> std::process::Output {
    use std::io::Read;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?} does not start: {e}"));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

#[test]
fn the_serve_bench_reports_listing_baseline_changes_and_memory() {
    let out = run(
        &[
            "serve",
            "--no-attacks",
            "--skills",
            "20",
            "--rounds",
            "5",
            "--reps",
            "2",
            "--load-secs",
            "2",
            "--json",
        ],
        Duration::from_secs(300),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["skills"], 20, "{report}");
    for key in [
        "skills_list_http",
        "skills_list_http_rmcp_only",
        "skills_list_rmcp",
        "skills_list_rmcp_first_page",
        "baseline_in_process",
        "change_to_list_changed",
        "beyond_window",
    ] {
        let runs = report[key]["runs"].as_u64().unwrap_or(0);
        assert!(runs > 0, "{key} has no runs: {report}");
        assert!(
            report[key]["p50_ms"].as_f64().is_some_and(|v| v >= 0.0),
            "{key}: {report}"
        );
    }
    // At least 50 changes, whatever --reps asked, so the p99 means something.
    assert!(
        report["change_to_list_changed"]["runs"].as_u64() >= Some(50),
        "{report}"
    );
    assert!(
        report["ratio_rmcp_only_fast_path_p50"]
            .as_f64()
            .is_some_and(|r| r > 0.0),
        "{report}"
    );
    assert!(
        report["ratio_http_in_process_p50"]
            .as_f64()
            .is_some_and(|r| r > 0.0),
        "{report}"
    );
    assert!(
        report["listing_bytes"]
            .as_u64()
            .is_some_and(|b| b > 20 * 100),
        "every skill's entry crosses: {report}"
    );
    assert_eq!(report["idle_sessions"], 100, "{report}");
    assert!(
        report["rss_before_kib"].as_u64().is_some_and(|k| k > 0),
        "{report}"
    );
    assert!(report["rss_per_session_kib"].as_f64().is_some(), "{report}");
    // The load phase: 200 sessions answered, none failing, the server
    // sampled before, at peak and after.
    let load = &report["load"];
    assert_eq!(load["sessions"], 200, "{report}");
    assert!(
        load["requests"].as_u64().is_some_and(|n| n >= 200),
        "{report}"
    );
    assert_eq!(load["errors"], 0, "{report}");
    assert!(load["latency"]["runs"].as_u64() == load["requests"].as_u64());
    for key in ["before", "peak", "after"] {
        assert!(
            load["rss_kib"][key].as_u64().is_some_and(|k| k > 0),
            "{report}"
        );
        assert!(
            load["descriptors"][key].as_u64().is_some_and(|k| k > 0),
            "{report}"
        );
    }
}

#[test]
fn the_remote_mcp_bench_reports_cold_and_unchanged_listings_with_their_bytes() {
    let out = run(
        &[
            "remote-mcp",
            "--skills",
            "30",
            "--rounds",
            "3",
            "--page-size",
            "10",
            "--json",
        ],
        Duration::from_secs(300),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["skills"], 30, "{report}");
    for key in ["cold_ms", "unchanged_poll_ms"] {
        assert!(
            report[key]["p50"].as_f64().is_some_and(|v| v > 0.0),
            "{key}: {report}"
        );
    }
    // Three pages each way: a listing moves more than its entries' names.
    for key in ["cold_bytes", "unchanged_poll_bytes"] {
        assert!(
            report[key].as_u64().is_some_and(|b| b > 30 * 40),
            "{key}: {report}"
        );
    }
}

fn bench_json(args: &[&str]) -> Value {
    let mut full = Vec::new();
    full.extend_from_slice(args);
    full.push("--json");
    let out = run(&full, Duration::from_secs(300));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_scan_bench_reports_each_ratio_with_what_it_compares() {
    let report = bench_json(&["scan", "--skills", "50", "--rounds", "1"]);
    assert_eq!(report["skills"], 50, "{report}");
    assert_eq!(report["rounds"], 1, "{report}");
    assert!(
        report["baseline"]
            .as_str()
            .is_some_and(|b| b.contains("files calls")),
        "{report}"
    );
    for key in ["cold", "warm", "rescan"] {
        for figure in ["sandboxed_ms", "native_ms", "ratio"] {
            assert!(
                report[key][figure].as_f64().is_some_and(|v| v > 0.0),
                "{key}.{figure}: {report}"
            );
        }
        assert!(
            report[key]["compares"].as_str().is_some(),
            "{key}: {report}"
        );
    }
    assert!(
        report["warm"]["compares"]
            .as_str()
            .is_some_and(|c| c.contains("one changed file") && c.contains("full native rescan")),
        "{report}"
    );
    assert_eq!(report["cold"]["target"], 1.2, "{report}");
    assert!(
        report["json_to_fields"]["ms"]
            .as_f64()
            .is_some_and(|v| v > 0.0),
        "the host's JSON-to-fields step is reported: {report}"
    );
    assert_eq!(report["warm"]["target"], 0.1, "{report}");
}

#[test]
fn the_catalog_json_bench_times_both_catalogs_as_whole_processes() {
    let report = bench_json(&["catalog-json", "--skills", "20", "--rounds", "1"]);
    assert_eq!(report["skills"], 20, "{report}");
    assert_eq!(report["rounds"], 1, "{report}");
    for key in ["text_ms", "json_ms", "ratio_json_text"] {
        assert!(
            report[key].as_f64().is_some_and(|v| v > 0.0),
            "{key}: {report}"
        );
    }
    assert_eq!(report["target"], 1.2, "{report}");
    assert!(
        report["compares"]
            .as_str()
            .is_some_and(|c| c.contains("--json")),
        "{report}"
    );
}

#[test]
fn the_scan_bench_prints_the_ratio_line_last() {
    let out = run(
        &["scan", "--skills", "20", "--rounds", "1"],
        Duration::from_secs(300),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("ratio sandboxed/native: cold "), "{text}");
    let numbers: Vec<f64> = last
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(numbers.len(), 2, "{last}");
    assert!(numbers.iter().all(|n| *n > 0.0 && n.is_finite()), "{last}");
}

#[test]
fn the_skillhost_binary_has_no_bench_command() {
    let out = Command::new(product()).arg("bench").output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unrecognized subcommand"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_reach_bench_counts_what_each_door_shows_and_search_reaches_every_skill() {
    let report = bench_json(&["reach"]);
    assert_eq!(report["skills"], 570, "{report}");
    assert_eq!(report["found_by_search"], 570, "{report}");
    assert_eq!(report["project_named"], 17, "{report}");
    let tool = &report["tool"];
    assert!(
        tool["chars"].as_u64().is_some_and(|c| c <= 2_048),
        "{report}"
    );
    for door in ["listing", "tool"] {
        let d = &report[door];
        let named = d["named"].as_u64().unwrap();
        let left = d["left_out"].as_u64().unwrap();
        assert_eq!(named + left, 570, "every skill named or counted: {report}");
    }
}
