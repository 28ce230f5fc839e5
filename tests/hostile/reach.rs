//! Hostile providers that reach beyond their grant: reads outside it,
//! watches on the whole filesystem and watch floods, sockets and ungranted
//! origins, environment and stdout, FIFOs, read-ahead floods and log floods.

use super::*;

#[test]
fn a_watch_request_for_the_whole_filesystem_is_refused_and_noted() {
    let arena = arena("watch-everything", "snapshot", false, limits());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    let d = named(&catalog, "asked to watch \"/\": refused");
    assert_eq!(d.field.as_deref(), Some("capability"));
    assert!(
        arena
            .hostile
            .watches()
            .keys()
            .all(|path| path.starts_with("/skills/0"))
    );
}
#[test]
fn reads_outside_the_grant_fail_through_wasi_and_through_files() {
    let arena = arena("read-outside", "snapshot", false, limits());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    // The guest traps if any read outside its grant succeeded.
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
}
#[test]
fn a_flood_of_read_ahead_announcements_reads_nothing_outside_and_ends_with_the_call() {
    // Lifting 800,000 paths costs the host real time: a deadline that is
    // not the point of this test.
    let limits = Limits {
        deadline: Duration::from_secs(10),
        ..limits()
    };
    let arena = arena("prefetch-flood", "snapshot", false, limits);
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    // The guest traps if a read outside its grant succeeded. Only the first
    // few of the 50 announcements of 16,002 paths start readers.
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    // What was read ahead is dropped with the call: its readers stop, and
    // the engine's threads stay within the pool's bound.
    no_reader_left(&arena);
    let again = arena.attacked();
    assert!(again.complete, "{:?}", again.diagnostics);
}
#[test]
fn sockets_and_ungranted_origins_are_refused_and_warned_about() {
    for (attack, noted) in [
        ("sockets", "tried to open a TCP socket"),
        (
            "http",
            "made an HTTP request to http://127.0.0.1:9: refused, that origin is not granted",
        ),
    ] {
        let arena = arena(attack, "snapshot", false, limits());
        arena.honest();
        arena.arm();
        let catalog = arena.attacked();
        survived(&catalog, true);
        let d = named(&catalog, noted);
        assert_eq!(d.field.as_deref(), Some("capability"), "{attack}");
    }
}
#[test]
fn an_empty_environment_and_a_discarded_stdout_are_noted_with_a_count_not_warned_about() {
    for (attack, kind, noted) in [
        (
            "environment",
            skillhost::sandbox::Refused::Environment,
            "read its environment variables",
        ),
        (
            "stdout",
            skillhost::sandbox::Refused::Stdout,
            "wrote to stdout",
        ),
    ] {
        let arena = arena(attack, "snapshot", false, limits());
        arena.honest();
        arena.arm();
        let catalog = arena.attacked();
        survived(&catalog, true);
        assert!(
            !catalog
                .diagnostics
                .iter()
                .any(|d| d.message.contains(noted)),
            "{attack}: the contract working is no warning: {:?}",
            catalog.diagnostics
        );
        let counted = arena.hostile.refusal_counts();
        let refusal = counted
            .iter()
            .find(|r| r.kind == kind)
            .unwrap_or_else(|| panic!("{attack}: {counted:?}"));
        assert!(refusal.message.contains(noted), "{attack}: {refusal:?}");
        assert!(refusal.count >= 1);
    }
}
/// Waits until the engine's workers have nothing left to do; fails if a
/// read ahead outlives its call, or the pool grew past its bound.
fn no_reader_left(arena: &Arena) {
    let until = Instant::now() + Duration::from_secs(10);
    while arena.workers.busy() > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(arena.workers.busy(), 0, "read-ahead outlived the call");
    assert!(arena.workers.threads() <= MAX_WORKERS);
}
#[test]
fn a_watch_flood_is_refused_past_each_bound_and_its_depth_clamped() {
    let arena = arena("watch-flood", "snapshot", false, limits());
    arena.registry.watch(Default::default()).unwrap();
    arena.honest();
    let before = Usage::now();
    arena.arm();
    let catalog = arena.attacked();
    // The guest traps unless each request over a bound was refused.
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    named(&catalog, "over the limit of 4096 watched paths");
    named(&catalog, "over the limit of 1048576 bytes of watched paths");
    named(&catalog, "the path is 5010 bytes, over the limit of 4096");
    assert_eq!(
        noted(&catalog, "watch-flood:"),
        "watch-flood: 904 of 5000 refused"
    );
    let watches = arena.hostile.watches();
    assert!(!watches.is_empty() && watches.len() <= 4096);
    assert!(watches.keys().all(|p| p.len() <= 4096));
    assert!(watches.keys().map(String::len).sum::<usize>() <= 1024 * 1024);
    assert!(
        watches.values().all(|w| w.depth == 2),
        "depth 99 is clamped to 2"
    );
    // The watcher still serves the good provider.
    arena.good_provider_changes("added");
    write(
        arena.good_root.path(),
        "watched/SKILL.md",
        skill_md("watched", "Seen by the watcher").as_bytes(),
    );
    let until = Instant::now() + Duration::from_secs(30);
    let mut catalog = arena.registry.snapshot();
    while catalog.get("watched").is_none() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
        catalog = arena.registry.snapshot();
    }
    assert!(catalog.get("watched").is_some(), "{catalog:?}");
    assert!(catalog.get("added").is_some());
    survived(&catalog, true);
    before.settled_after(&arena);
}
#[test]
fn a_fifo_opened_through_wasi_is_refused_at_once_and_the_call_returns() {
    let arena = arena("fifo-wasi", "snapshot", false, limits());
    mkfifo(&arena.hostile_root.path().join("fifo"));
    arena.honest();
    let before = Usage::now();
    arena.arm();
    let catalog = {
        let _guard = watchdog("a snapshot opening a FIFO through WASI");
        arena.attacked()
    };
    // Within its deadline (a deadline fault would make it incomplete), and
    // the guest traps if the open succeeded.
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    named(&catalog, "which is not a regular file or folder: refused");
    noted(&catalog, "fifo-wasi: ");
    before.settled_after(&arena);
}
#[test]
fn a_fifo_read_through_files_and_read_ahead_is_refused_and_no_reader_is_left() {
    let arena = arena("fifo-files", "snapshot", false, limits());
    mkfifo(&arena.hostile_root.path().join("fifo"));
    arena.honest();
    let before = Usage::now();
    arena.arm();
    let catalog = {
        let _guard = watchdog("a snapshot reading a FIFO through files");
        arena.attacked()
    };
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    for note in ["fifo-files read: ", "fifo-files prefetch: "] {
        let seen = noted(&catalog, note);
        assert!(seen.contains("not a regular file"), "{seen}");
    }
    no_reader_left(&arena);
    before.settled_after(&arena);
}
/// Everything the `tracing` events of this thread print, while it lives.
#[test]
fn a_log_flood_is_rate_limited_and_cleaned_of_control_characters() {
    use tracing_subscriber::util::SubscriberInitExt;
    let arena = arena("log-flood", "snapshot", false, patient());
    arena.honest();
    let before = Usage::now();
    let captured = skillhost_tests::Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    arena.arm();
    let catalog = {
        // The provider's calls run on this thread.
        let _default = subscriber.set_default();
        arena.attacked()
    };
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    let text = captured.text();
    // Cleaned: no escape, no bidi control, no line of its own making.
    for forbidden in ['\u{1b}', '\u{202E}', '\u{2066}', '\r'] {
        assert!(!text.contains(forbidden), "{forbidden:?} reached the log");
    }
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with("forged")),
        "a provider forged a log line"
    );
    let written: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("hostile flood ") && !l.contains("hostile flood over"))
        .collect();
    assert!(
        written
            .iter()
            .all(|l| l.contains("provider=\"hostile\"") && l.contains("forged: line")),
        "{written:?}"
    );
    // At most 50 a second were written; every other one was counted as
    // dropped and reported (the last report when the next second began).
    let dropped: u64 = text
        .lines()
        .filter_map(|l| {
            let (count, _) = l.split_once(" log messages dropped: more than 50 a second")?;
            count.rsplit(' ').next()?.parse::<u64>().ok()
        })
        .sum();
    assert!(dropped > 0, "nothing was dropped: {} lines", written.len());
    // The last message, a second later, is written and reports the rest.
    assert!(text.contains("hostile flood over"));
    assert_eq!(
        written.len() as u64 + dropped,
        100_000,
        "every message was either written or counted as dropped"
    );
    assert!(written.len() < 10_000, "{} written", written.len());
    before.settled_after(&arena);
}
